## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{d} =} private_dir (@var{fname}, @var{parent})
## Make a new folder for this call alone inside the existing folder @var{parent} and return
## its path: the name is @samp{.muonlab-} followed by the process id and random letters
## (from @code{tempname}, so Octave's random number generators are not touched), and it is
## created by @code{mkdir}, which refuses a name already taken by anything (a file, a
## folder, a planted link), so nothing in it can have been prepared by someone else.  A
## taken name is retried with another (8 tries).  Errors (@code{muonlab:badArg}) name
## @var{fname}.  The caller removes the folder (@code{rmdir}) when done.
## @end deftypefn

function d = private_dir (fname, parent)
  if (isempty (parent))
    parent = ".";
  endif
  if (! isfolder (parent))
    error ("muonlab:badArg", "%s: cannot write into '%s': no such folder.", fname, parent);
  endif
  msg = "";
  for k = 1:8
    [~, tag] = fileparts (tempname ("", ""));
    name = sprintf (".muonlab-%d-%s", getpid (), tag);
    [ok, msg, id] = mkdir (parent, name);
    if (ok && isempty (id))
      d = fullfile (parent, name);
      return;
    elseif (! ok)
      break;
    endif
    msg = "the temporary names are taken";
  endfor
  error ("muonlab:badArg", "%s: cannot write into '%s': %s.", fname, parent, msg);
endfunction
