## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{folder}, @var{mask}] =} write_target (@var{fname}, @var{file})
## Check, before anything is written, that @var{file} can be a target of @code{write_file}
## or @code{write_files}: not a folder, and in an existing folder (or in the current one);
## return that @var{folder} (@qcode{""} for the current one).  An existing regular file at
## @var{file} (not a link: a link is replaced, not followed) must be one the user could
## write in place, as Octave's @code{save} would (opened for appending, which changes
## nothing: the system's own check, so a 0444 file is refused to its owner and written by
## root); else the error names the reason (@qcode{"Permission denied"}).  @var{mask} is
## then the argument of @code{umask} (octal digits) under which a new file gets that
## file's read and write permission bits, for the temporary renamed over it (so a 0600
## checkpoint stays 0600, not the umask's 0644); @code{[]} when there is no such file.
## Errors (@code{muonlab:badArg}) name @var{fname} and @var{file}.
## @end deftypefn

function [folder, mask] = write_target (fname, file)
  if (isfolder (file))
    error ("muonlab:badArg", "%s: cannot write '%s': it is a folder.", fname, file);
  endif
  folder = fileparts (file);
  if (! (isempty (folder) || isfolder (folder)))
    error ("muonlab:badArg", "%s: cannot write '%s': no such folder.", fname, file);
  endif
  mask = [];
  [st, err] = lstat (file);
  if (err == 0 && S_ISREG (st.mode))
    [fid, msg] = fopen (file, "a");     # access (W_OK), without a shell
    if (fid < 0)
      error ("muonlab:badArg", "%s: cannot write '%s': %s.", fname, file, msg);
    endif
    fclose (fid);
    mask = str2double (dec2base (bitxor (511, bitand (st.mode, 511)), 8));   # 0777 & ~mode
  endif
endfunction
