## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{nbytes} =} regular_file (@var{fname}, @var{file}, @var{limit})
## Check, before it is opened, that @var{file} is a regular file (after links) of at most
## @code{core_lists ().limits.@var{limit}} bytes (a limit whose name ends in @samp{_mib}
## counts MiB; @var{limit} "": no size limit, for a file of which only a header is read)
## and return its size: a FIFO, a device such as @file{/dev/zero}, a socket or
## a folder is refused, so that reading never hangs or runs without end.  Errors are
## @code{muonlab:badArg} naming @var{fname}, the file and, for the size, the limit; a file
## that cannot be looked at says why (@qcode{"no such file"}, else the system's reason,
## e.g. @qcode{"Permission denied"} or @qcode{"File name too long"}).
## @end deftypefn

function nbytes = regular_file (fname, file, limit)
  [st, err, msg] = stat (file);
  if (err != 0)
    if (errno () == errno ("ENOENT") || isempty (msg))    # (errno: stat's own, just set)
      msg = "no such file";
    endif
    error ("muonlab:badArg", "%s: cannot read '%s': %s.", fname, file, msg);
  elseif (S_ISDIR (st.mode))
    error ("muonlab:badArg", "%s: cannot read '%s': it is a folder.", fname, file);
  elseif (! S_ISREG (st.mode))
    error ("muonlab:badArg",
           "%s: cannot read '%s': not a regular file (a FIFO, a device or a socket).", fname,
           file);
  endif
  nbytes = st.size;
  if (isempty (limit))
    return;
  endif
  lim = core_lists ().limits.(limit);
  unit = "bytes";
  if (strcmp (limit(end-3:end), "_mib"))
    lim *= 2^20;
    unit = sprintf ("bytes (%d MiB)", lim / 2^20);
  endif
  if (nbytes > lim)
    error ("muonlab:badArg", "%s: '%s' is %.0f bytes; at most %.0f %s are read (the limit %s).",
           fname, file, nbytes, lim, unit, limit);
  endif
endfunction
