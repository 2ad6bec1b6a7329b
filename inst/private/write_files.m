## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{h} =} write_files ("prepare", @var{fname}, @var{files}, @var{contents})
## @deftypefnx {} {} write_files ("commit", @var{h})
## @deftypefnx {} {} write_files ("abort", @var{h})
## Write a set of files all or nothing, as far as a file system allows (the set of shard
## files of one checkpoint, @code{zero_save_state}).
##
## @qcode{"prepare"} checks every target in the cell @var{files} (@code{write_target}: not
## a folder, in an existing folder, an existing file one the user could write in place,
## else @qcode{"cannot write '@var{file}': Permission denied."}), then writes each
## @var{contents}@{k@} (bytes, uint8 or char) to a temporary file in a folder made for it beside @var{files}@{k@} (@code{private_dir}, as
## @code{write_file}), checks that each closed temporary's size on disk is its content's
## (@code{written_whole}: on a full file system @code{fwrite} and @code{fclose} report
## success for bytes that never reached the disk), and returns the handle @var{h}.  A
## temporary gets its target's read and write permission bits when the target exists
## (as @code{write_file}: a 0600 file stays 0600).
## Nothing is renamed yet: on any error the temporaries written so far are removed, the
## targets untouched.
##
## @qcode{"commit"} renames them over their targets, one by one, each existing target
## first moved aside into its temporary folder; if a rename fails (a target that cannot be
## replaced, say immutable), the targets already replaced get their previous files back
## (or are removed where there was none) before the error, so that the set on disk is the
## old one (a previous file that cannot be put back stays in its temporary folder).  Only a crash in the middle of the renames can leave a mix.  @qcode{"abort"}
## removes the temporaries of a prepared set.  Errors are @code{muonlab:badArg} and name
## @var{fname}.
## @end deftypefn

function varargout = write_files (cmd, varargin)
  switch (cmd)
    case "prepare"
      varargout{1} = prepare (varargin{:});
    case "commit"
      commit (varargin{:});
    case "abort"
      cleanup (varargin{:});
  endswitch
endfunction

function h = prepare (fname, files, contents)
  n = numel (files);
  masks = cell (1, n);
  for k = 1:n                           # every target checked before anything is written
    [~, masks{k}] = write_target (fname, files{k});
  endfor
  h = struct ("fname", fname, "files", {files}, "dirs", {cell(1, n)});
  try
    for k = 1:n
      h.dirs{k} = private_dir (fname, fileparts (files{k}));
      tmp = fullfile (h.dirs{k}, "data");
      [fid, msg] = create (tmp, masks{k});
      if (fid < 0)
        error ("muonlab:badArg", "%s: cannot write '%s': %s.", fname, files{k}, msg);
      endif
      c = contents{k};
      m = fwrite (fid, c, "uint8");
      if (fclose (fid) != 0 || m != numel (c))
        error ("muonlab:badArg", "%s: cannot write '%s': short write.", fname, files{k});
      endif
      written_whole (fname, files{k}, tmp, numel (c));   # (a full disk: fwrite says all)
    endfor
  catch err
    cleanup (h);
    rethrow (err);
  end_try_catch
endfunction

## TMP opened for writing, created under the umask MASK when given (a target's
## permissions), the process's own umask back at once
function [fid, msg] = create (tmp, mask)
  if (isempty (mask))
    [fid, msg] = fopen (tmp, "w");
  else
    old = umask (mask);
    unwind_protect
      [fid, msg] = fopen (tmp, "w");
    unwind_protect_cleanup
      umask (old);
    end_unwind_protect
  endif
endfunction

function commit (h)
  n = numel (h.files);
  moved = false (1, n);                 # the previous file is aside, in dirs{k}/old
  placed = false (1, n);                # the new file is at files{k}
  try
    for k = 1:n
      file = h.files{k};
      [~, e] = lstat (file);
      if (e == 0)                       # (a link is moved itself, not followed)
        [st, msg] = rename (file, fullfile (h.dirs{k}, "old"));
        if (st != 0)
          error ("muonlab:badArg", "%s: cannot write '%s': %s.", h.fname, file, msg);
        endif
        moved(k) = true;
      endif
      [st, msg] = rename (fullfile (h.dirs{k}, "data"), file);
      if (st != 0)
        error ("muonlab:badArg", "%s: cannot write '%s': %s.", h.fname, file, msg);
      endif
      placed(k) = true;
    endfor
  catch err
    for k = n:-1:1                      # the previous set back
      if (moved(k))
        rename (fullfile (h.dirs{k}, "old"), h.files{k});   # (over the new one, if placed)
      elseif (placed(k))
        unlink (h.files{k});
      endif
    endfor
    cleanup (h, true);                  # (a previous file that could not go back stays)
    rethrow (err);
  end_try_catch
  cleanup (h);
endfunction

function cleanup (h, keep_old)
  keep_old = nargin > 1 && keep_old;
  for k = 1:numel (h.dirs)
    d = h.dirs{k};
    if (ischar (d) && ! isempty (d))
      names = {"data", "old"}(1:2 - keep_old);
      for f = names
        x = fullfile (d, f{1});
        [~, e] = lstat (x);
        if (e == 0)
          unlink (x);
        endif
      endfor
      [~] = rmdir (d);                  # (not empty: a previous file kept)
    endif
  endfor
endfunction
