## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{msg} =} mat_check (@var{b})
## Walk the bytes @var{b} (uint8 row) of a MAT-file version 5 as @code{state_write} writes
## it, completely, before Octave's @code{load} sees them (which can crash the process or
## loop forever on a malformed element): return "" when every element is sound, else what
## is wrong.  Checked: the 128-byte header (version 0x0100, little-endian "IM"), then one
## uncompressed miMATRIX element holding the variable; in every miMATRIX, the array flags,
## the dimensions (at least 2, none negative; a char's none past the file's bytes, an empty
## char's none past 65536), the name, and per class: numeric and logical data of exactly
## the elements the dimensions say (real and, when flagged, imaginary part), char data
## (UTF-8 or 16-bit) of that many characters, a cell's elements,
## a struct's field-name length (1 to 64), its field names (valid names) and its elements;
## every length is checked against the bytes left, every element ends on its 8-byte
## boundary, nothing is left over, nesting is at most 64 deep.  Sparse arrays, objects,
## function handles and compressed elements are refused (a checkpoint holds none); an
## element's type is checked before its length, so a compressed payload (@code{save -v7},
## not padded to 8 bytes) is always "not an uncompressed miMATRIX element".
## @end deftypefn

function msg = mat_check (b)
  msg = "";
  try
    n = numel (b);
    if (n < 136)
      fail_ ("shorter than a MAT-file header and one element");
    endif
    if (! isequal (b(125:128), uint8 ([0 1 73 77])))
      fail_ ("not a little-endian MAT-file version 5");
    endif
    ## the type before the length: a compressed element (miCOMPRESSED, save -v7) is not
    ## padded to 8 bytes, which tag's length check would report instead
    if (peek (b, 129, n + 1) != 14)
      fail_ ("its variable is not an uncompressed miMATRIX element");
    endif
    [~, len, at, next] = tag (b, 129, n + 1);
    matrix (b, at, at + len, 1);
    if (next != n + 1)
      fail_ ("%d bytes follow the variable", n + 1 - next);
    endif
  catch err
    if (! strcmp (err.identifier, "muonlab:matCheck"))
      rethrow (err);
    endif
    msg = err.message;
  end_try_catch
endfunction

function fail_ (fmt, varargin)
  error ("muonlab:matCheck", fmt, varargin{:});
endfunction

function x = u32 (b, at)
  x = double (typecast (b(at:at+3), "uint32"));
endfunction

## The type of the element at AT (1-based), within [AT, STOP), its length not yet checked.
function type = peek (b, at, stop)
  if (at + 7 >= stop)
    fail_ ("an element tag at byte %d runs past its container", at - 1);
  endif
  type = u32 (b, at);
  if (type >= 65536)                    # small data element: length in the upper half
    type = mod (type, 65536);
  endif
endfunction

## The element at AT (1-based), within [AT, STOP): its type, its data length, where its data
## starts and where the next element starts (8-byte aligned; small elements take 8 bytes).
function [type, len, data, next] = tag (b, at, stop)
  type = peek (b, at, stop);
  w = u32 (b, at);
  if (w >= 65536)                       # small data element: length in the upper half
    len = floor (w / 65536);
    if (len > 4)
      fail_ ("a small element at byte %d claims %d bytes", at - 1, len);
    endif
    data = at + 4;
    next = at + 8;
  else
    type = w;
    len = u32 (b, at + 4);
    data = at + 8;
    next = data + 8 * ceil (len / 8);
    if (next > stop)
      fail_ ("an element at byte %d claims %d bytes; %d are left", at - 1, len,
             max (0, stop - data));
    endif
  endif
endfunction

## A sub-element of the expected TYPES; its data as [data, len].
function [data, len, next] = sub (b, at, stop, types, what)
  type = peek (b, at, stop);
  if (! any (type == types))
    fail_ ("the %s element at byte %d has type %d", what, at - 1, type);
  endif
  [~, len, data, next] = tag (b, at, stop);
endfunction

## One miMATRIX whose data is [AT, STOP).
function matrix (b, at, stop, depth)
  if (depth > 64)
    fail_ ("nested more than 64 deep");
  endif
  [d, len, at] = sub (b, at, stop, 6, "array flags");
  if (len != 8)
    fail_ ("array flags of %d bytes", len);
  endif
  flags = u32 (b, d);
  cls = mod (flags, 256);
  complex = bitand (flags, 2048) != 0;
  [d, len, at] = sub (b, at, stop, 5, "dimensions");
  if (len < 8 || mod (len, 4) != 0)
    fail_ ("a dimensions element of %d bytes", len);
  endif
  dims = double (typecast (b(d:d+len-1), "int32"));
  if (any (dims < 0))
    fail_ ("a negative dimension");
  endif
  ## a char array's rows are strings to strcmp and friends: an empty one with more rows
  ## than the file has bytes is no saved value (a 620756992 x 0 char made strcmp take
  ## 19 GB and 30 s); an empty option value such as zeros (1e6, 0) is numeric, and kept
  count = prod (dims);
  if (cls == 4 && any (dims > numel (b)))
    fail_ ("a dimension of %d, past the file's %d bytes", max (dims), numel (b));
  elseif (cls == 4 && count == 0 && any (dims > 65536))  # (a large file admits many rows)
    fail_ ("an empty char array with a dimension of %d", max (dims));
  endif
  [~, ~, at] = sub (b, at, stop, [1 2], "name");
  switch (cls)
    case {6, 7, 8, 9, 10, 11, 12, 13, 14, 15}        # numeric and logical
      for part = 1:1 + complex
        [type, len, ~, at] = tag (b, at, stop);
        if (! any (type == [1 2 3 4 5 6 7 9 12 13]))
          fail_ ("numeric data of type %d", type);
        endif
        width = [1 1 2 2 4 4 4 0 8 0 0 8 8](type);
        if (len != count * width)
          fail_ ("%d bytes of data for %d elements of %d bytes", len, count, width);
        endif
      endfor
    case 4                                            # char
      [type, len, ~, at] = tag (b, at, stop);
      if (! ((any (type == [1 2 16]) && len == count)
             || (any (type == [3 4 17]) && len == 2 * count)))
        fail_ ("char data of type %d, %d bytes for %d characters", type, len, count);
      endif
    case 1                                            # cell
      if (count * 8 > stop - at)
        fail_ ("a cell of %d elements in %d bytes", count, stop - at);
      endif
      for k = 1:count
        at = element (b, at, stop, depth);
      endfor
    case 2                                            # struct
      [d, len, at] = sub (b, at, stop, 5, "field name length");
      if (len != 4)
        fail_ ("a field name length of %d bytes", len);
      endif
      L = u32 (b, d);
      if (L < 1 || L > 64)
        fail_ ("a field name length of %d", L);
      endif
      [d, len, at] = sub (b, at, stop, 1, "field names");
      if (mod (len, L) != 0)
        fail_ ("%d bytes of field names of length %d", len, L);
      endif
      nf = len / L;
      names = reshape (b(d:d+len-1), L, nf);
      for j = 1:nf
        nm = names(:,j).';
        z = find (nm == 0, 1);
        if (isempty (z) || any (nm(z:end)) || ! isvarname (char (nm(1:z-1))))
          fail_ ("a malformed field name");
        endif
      endfor
      if (count * nf * 8 > stop - at)
        fail_ ("a struct of %d x %d elements in %d bytes", count, nf, stop - at);
      endif
      for k = 1:count * nf
        at = element (b, at, stop, depth);
      endfor
    otherwise
      fail_ ("an array of class %d (sparse, object or function handle)", cls);
  endswitch
  if (at != stop)
    fail_ ("an array with %d bytes beyond its parts", stop - at);
  endif
endfunction

## A nested miMATRIX element at AT; where the next one starts.
function next = element (b, at, stop, depth)
  type = peek (b, at, stop);
  if (type != 14)
    fail_ ("a nested element of type %d", type);
  endif
  [~, len, data, next] = tag (b, at, stop);
  if (len > 0)                          # (an empty element: an empty array)
    matrix (b, data, data + len, depth + 1);
  endif
endfunction
