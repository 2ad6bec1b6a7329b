## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{folder} =} write_target (@var{fname}, @var{file})
## Check, before anything is written, that @var{file} can be a target of @code{write_file}
## or @code{write_files}: not a folder, and in an existing folder (or in the current one);
## return that @var{folder} (@qcode{""} for the current one).  Errors
## (@code{muonlab:badArg}) name @var{fname} and @var{file}.
## @end deftypefn

function folder = write_target (fname, file)
  if (isfolder (file))
    error ("muonlab:badArg", "%s: cannot write '%s': it is a folder.", fname, file);
  endif
  folder = fileparts (file);
  if (! (isempty (folder) || isfolder (folder)))
    error ("muonlab:badArg", "%s: cannot write '%s': no such folder.", fname, file);
  endif
endfunction
