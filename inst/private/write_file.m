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
## folder, in an existing folder, and an existing file one the user could write in place,
## as Octave's @code{save} requires: a write-protected file is an error, @qcode{"cannot
## write '@var{file}': Permission denied."}, not replaced).  The new file keeps an existing
## file's read and write permission bits (created under a @code{umask} made from them: a
## 0600 file stays 0600), as a file written in place would; an execute bit is not kept.
## Errors (@code{muonlab:badArg}) name @var{fname}.
## @end deftypefn

function write_file (fname, file, content)
  [folder, mask] = write_target (fname, file);
  d = private_dir (fname, folder);
  tmp = fullfile (d, "data");
  old_mask = [];
  unwind_protect
    if (! isempty (mask))               # the existing file's permissions for the new one
      old_mask = umask (mask);
    endif
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
    if (! isempty (old_mask))
      umask (old_mask);
      old_mask = [];
    endif
    written_whole (fname, file, tmp, n);
    [st, msg] = rename (tmp, file);
    if (st != 0)
      error ("muonlab:badArg", "%s: cannot write '%s': %s.", fname, file, msg);
    endif
  unwind_protect_cleanup
    if (! isempty (old_mask))           # (an error or an interrupt while writing)
      umask (old_mask);
    endif
    private_dir_remove (d, tmp);
  end_unwind_protect
endfunction
