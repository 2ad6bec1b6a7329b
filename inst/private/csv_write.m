## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{n} =} csv_write (@var{fname}, @var{file}, @var{names}, @var{cols})
## @deftypefnx {} {@var{n} =} csv_write (@dots{}, @var{target})
## Write the table of columns @var{cols} (a cell of n-row columns: numeric or logical
## n x 1, or cells of strings and numbers) under the header @var{names} to @var{file}, as
## @code{muon_export} describes, row by row: doubles in the fewest of 15, 16 or 17
## significant digits that read back as the same double (@code{double_text}, as
## @code{json_encode} writes them), NaN, Inf and -Inf as such, integers (int64 and uint64
## too) with all their digits, logicals as 0 and 1, strings as their bytes (UTF-8 or not),
## quoted where they must be (RFC 4180), and all quoted in a column of strings that would
## all read as numbers or empty (@code{muon_import} keeps a column with a quoted entry as
## text).  Returns @var{n}, the number of bytes meant for @var{file} (counted from the
## text, not from what Octave says it wrote), for @code{write_file} to check against the
## file's size on disk.  A failed @code{fopen}, a short @code{fwrite} or a failed
## @code{fclose} is a @qcode{"cannot write"} error naming @var{target} (default
## @var{file}: the caller's name for a temporary file).  Errors name @var{fname}.
## @end deftypefn

function n_bytes = csv_write (fname, file, names, cols, target)
  if (nargin < 5)
    target = file;
  endif
  if (any (cellfun ("isempty", names)))           # (muon_import refuses such a header)
    error ("muonlab:badArg", "%s: X has a field with no name, which a CSV header cannot hold.",
           fname);
  endif
  n = rows (cols{1});
  head = [strjoin(cellfun (@csv_quote, names, "UniformOutput", false), ",") "\n"];
  data = cell (numel (cols), n);
  for k = 1:numel (cols)
    c = cols{k}(:);
    if (isa (c, "int64") || isa (c, "uint64"))    # every digit (double () keeps 53 bits)
      data(k,:) = int_text (c);
    elseif (isnumeric (c) || islogical (c))
      data(k,:) = double_text (double (c));
    else
      str = cellfun ("isclass", c, "char");
      c(! str) = cellfun (@cell_text, c(! str), "UniformOutput", false);
      q = find (str);                  # the strings to quote: a comma, a quote or a line
      len = cellfun ("length", c(q));  # break among their bytes (no regexp: the bytes
      hit = ismember ([c{q}], ",\"\r\n");  # need not be UTF-8)
      if (any (hit))
        who = repelem (1:numel (q), len(:).');
        q = q(unique (who(hit)));
        c(q) = cellfun (@csv_quote, c(q), "UniformOutput", false);
      endif
      ## strings that all read as numbers or are empty ({"1"; ""}) would come back as a
      ## numeric column: quoted, they stay text
      full = ! cellfun ("isempty", c);
      if (all (str) && any (full) && all (nthargout (3, @csv_parse, [strjoin(c.', "\n") "\n"])))
        c(full) = cellfun (@(x) ['"' x '"'], c(full), "UniformOutput", false);
      endif
      data(k,:) = c;
    endif
  endfor
  body = "";
  if (n > 0)
    body = sprintf ([strjoin(repmat ({"%s"}, 1, numel (cols)), ",") "\n"], data{:});
  endif
  [fid, msg] = fopen (file, "w");
  if (fid < 0)
    error ("muonlab:badArg", "%s: cannot write '%s': %s.", fname, target, msg);
  endif
  m = fwrite (fid, head, "uint8") + fwrite (fid, body, "uint8");
  n_bytes = numel (head) + numel (body);
  if (fclose (fid) != 0 || m != n_bytes)
    error ("muonlab:badArg", "%s: cannot write '%s': short write.", fname, target);
  endif
endfunction

## a value of a cell column as CSV text: a string (quoted where it must be), numbers
## separated by spaces
function s = cell_text (x)
  if (ischar (x))
    s = csv_quote (x);
  elseif (isempty (x))
    s = "";
  elseif (isinteger (x))
    s = strjoin (int_text (x), " ");
  else
    s = strjoin (double_text (double (x(:).')), " ");
    if (numel (x) > 1)
      s = csv_quote (s);
    endif
  endif
endfunction

## S in quotes, its quotes doubled, where it holds a comma, a quote or a line break
function s = csv_quote (s)
  if (any (s == ",") || any (s == '"') || any (s == "\n") || any (s == "\r"))
    s = ['"' strrep(s, '"', '""') '"'];
  endif
endfunction
