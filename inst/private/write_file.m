## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} write_file (@var{fname}, @var{file}, @var{content})
## Write @var{file} whole or not at all: @var{content} (bytes, uint8 or char), or a function
## handle @var{writer} where @code{@var{n} = @var{writer} (@var{tmp})} writes the content
## and returns the number of bytes it meant to write, goes to
## @var{tmp}, a fresh name inside a folder made for this call alone beside @var{file}
## (@code{private_dir}: an existing path, e.g. a planted link, is never opened), which is
## then renamed over @var{file} (@code{rename}, a system call: no shell sees @var{file},
## and a link at @var{file} is replaced, not followed), but only once the closed temporary
## file's size on disk is the number of bytes meant (@code{written_whole}: on a full file
## system Octave's @code{fwrite} and @code{fclose} report success for bytes that never
## reached the disk).  An interrupted or failed write, a full disk included, leaves
## @var{file} as it was.  @var{file} is checked first (@code{write_target}: not a
## folder, in an existing folder).  Errors (@code{muonlab:badArg}) name @var{fname}.
## @end deftypefn

function write_file (fname, file, content)
  folder = write_target (fname, file);
  d = private_dir (fname, folder);
  tmp = fullfile (d, "data");
  unwind_protect
    if (is_function_handle (content))
      n = content (tmp);
    else
      [fid, msg] = fopen (tmp, "w");
      if (fid < 0)
        error ("muonlab:badArg", "%s: cannot write '%s': %s.", fname, file, msg);
      endif
      m = fwrite (fid, content, "uint8");
      n = numel (content);
      if (fclose (fid) != 0 || m != n)
        error ("muonlab:badArg", "%s: cannot write '%s': short write.", fname, file);
      endif
    endif
    written_whole (fname, file, tmp, n);
    [st, msg] = rename (tmp, file);
    if (st != 0)
      error ("muonlab:badArg", "%s: cannot write '%s': %s.", fname, file, msg);
    endif
  unwind_protect_cleanup
    private_dir_remove (d, tmp);
  end_unwind_protect
endfunction
