## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{bytes} =} state_write (@var{fname}, @var{file}, @var{kind}, @var{payload})
## @deftypefnx {} {@var{bytes} =} state_write (@var{fname}, "", @var{kind}, @var{payload}, @var{near})
## Write @var{payload} (any value made of double, single, logical, integer and char
## arrays, cells and structs) to @var{file} as a muonlab checkpoint of kind @var{kind}
## (a lower-case name such as @qcode{"muon_optimizer"}): a 64-byte header, the payload
## as a MAT-file (version 5, uncompressed, the one variable @code{payload}), and the
## SHA-256 of everything before it.  The layout, for any reader:
##
## @example
## offset  size  field
##      0     8  magic "MUONCKPT" (ASCII)
##      8     4  format version, uint32 little-endian (2)
##     12     4  reserved, zero
##     16     8  payload length N in bytes, uint64 little-endian
##     24    40  kind, ASCII, padded with NUL bytes
##     64     N  payload: MAT-file 5 (Octave's save -v6) holding one variable, "payload"
##   64+N    32  SHA-256 of bytes [0, 64+N) (header and payload), raw
## @end example
##
## The file is exactly 96 + N bytes.  The MAT-file's 116-byte description text is a fixed
## string (no date), so the same payload gives the same bytes.  Octave 7 cannot load a
## multi-row char array nested in a struct or cell from a MAT-file, so such values are
## refused here (a programming error: muonlab:badArg).  Octave's @code{save} writes files
## only: the MAT-file is made in a private folder (@code{private_dir}) beside @var{file}
## (or beside @var{near}, the file the bytes are for, when @var{file} is empty; the
## current folder without either), never in the temporary folder, and must come back
## whole (the length in its element tag; a full disk is a @code{muonlab:badArg}
## @qcode{"cannot write"} error).  The file is written beside
## @var{file} under a temporary name in a folder made for the call (@code{write_file}: a
## path planted there is never opened) and renamed over it, so an interrupted save leaves
## the previous checkpoint whole.  With @var{file} empty nothing is written: @var{bytes},
## the file's content (uint8 row), is for the caller to write (@code{write_files}, a set
## of files all or nothing).  Errors name @var{fname}.  @code{state_read} reads it.
##
## Meant to be shared by every checkpoint muonlab writes: @code{muon_save_state} uses the
## kind @qcode{"muon_optimizer"} (payload: the optimizer struct), @code{zero_save_state}
## the kind @qcode{"zero_shard"} (payload: one rank's momentum buffer, the map of what it
## holds and the layout, checked on reading by @code{zero_load_state}).
## @seealso{state_read}
## @end deftypefn

function bytes = state_write (fname, file, kind, payload, near)
  if (! (ischar (kind) && ! isempty (regexp (kind, '^[a-z][a-z0-9_.-]{0,39}$', "once"))))
    error ("muonlab:badArg", "%s: KIND must be a lower-case name of at most 40 characters.",
           fname);
  endif
  check_value (fname, payload, "payload");

  ## the payload: a MAT-file 5 with a fixed description text
  if (! isempty (file))
    near = file;
  elseif (nargin < 5)
    near = "";
  endif
  d = private_dir (fname, write_target (fname, near));   # (beside the target: no TMPDIR)
  tmp = fullfile (d, "payload.mat");
  unwind_protect
    try
      save ("-v6", tmp, "payload");
    catch err
      error ("muonlab:badArg", "%s: cannot serialize the state: %s", fname, err.message);
    end_try_catch
    [fid, msg] = fopen (tmp, "r");
    if (fid < 0)
      error ("muonlab:badArg", "%s: cannot serialize the state: %s", fname, msg);
    endif
    body = fread (fid, Inf, "uint8=>uint8");
    fclose (fid);
  unwind_protect_cleanup
    private_dir_remove (d, tmp);
  end_unwind_protect
  body = body(:).';
  ## whole: the header and one element, as long as its tag says (save says nothing of a
  ## full disk)
  if (numel (body) < 136
      || numel (body) != 136 + double (from_le (body(133:136), "uint32")))
    error ("muonlab:badArg", ["%s: cannot write '%s': the disk is full or the file was cut " ...
                              "short (its payload, %d bytes)."], fname, near, numel (body));
  endif
  text = uint8 ("MATLAB 5.0 MAT-file, muonlab checkpoint payload");
  body(1:116) = uint8 (" ");
  body(1:numel (text)) = text;

  head = zeros (1, 64, "uint8");
  head(1:8) = uint8 ("MUONCKPT");
  head(9:12) = le_bytes (uint32 (2));
  head(17:24) = le_bytes (uint64 (numel (body)));
  head(25:24+numel (kind)) = uint8 (kind);
  bytes = [head, body];
  digest = hash ("sha256", char (bytes));
  bytes = [bytes, uint8(hex2dec (reshape (digest, 2, []).')).'];

  ## write beside FILE under an exclusive temporary name, then rename over it
  if (! isempty (file))
    write_file (fname, file, bytes);
  endif
endfunction

function b = le_bytes (x)
  b = typecast (x, "uint8");
  [~, ~, endian] = computer ();
  if (endian == "B")
    b = fliplr (b);
  endif
endfunction

## only values that a MAT-file 5 round trip gives back exactly
function check_value (fname, x, where)
  if (iscell (x))
    for i = 1:numel (x)
      check_value (fname, x{i}, sprintf ("%s{%d}", where, i));
    endfor
  elseif (isstruct (x))
    f = fieldnames (x);
    for i = 1:numel (x)
      for j = 1:numel (f)
        check_value (fname, x(i).(f{j}), sprintf ("%s.%s", where, f{j}));
      endfor
    endfor
  elseif (ischar (x))
    if (! (ndims (x) == 2 && rows (x) <= 1))
      error ("muonlab:badArg", "%s: cannot save %s: a char array must be a row.", fname,
             where);
    endif
  elseif (! (isnumeric (x) || islogical (x)))
    error ("muonlab:badArg", "%s: cannot save %s, of class %s.", fname, where, class (x));
  endif
endfunction
