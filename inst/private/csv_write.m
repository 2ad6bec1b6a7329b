## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} csv_write (@var{fname}, @var{file}, @var{names}, @var{cols})
## Write the table of columns @var{cols} (a cell of n-row columns: numeric or logical
## n x 1, or cells of strings and numbers) under the header @var{names} to @var{file}, as
## @code{muon_export} describes: @code{csvwrite} when every column is numeric, else row by
## row; numbers with 16 significant digits, integers (int64 and uint64 too) with all their
## digits, strings quoted where they must be (RFC 4180).  Errors name @var{fname}.
## @end deftypefn

function csv_write (fname, file, names, cols)
  n = rows (cols{1});
  isnum = cellfun (@(c) isnumeric (c) || islogical (c), cols);
  fid = fopen (file, "w");
  if (fid < 0)
    error ("muonlab:badArg", "%s: cannot write '%s'.", fname, file);
  endif
  fprintf (fid, "%s\n", strjoin (cellfun (@csv_quote, names, "UniformOutput", false), ","));
  wide = cellfun (@(c) isa (c, "int64") || isa (c, "uint64"), cols);
  if (all (isnum) && ! any (wide))
    fclose (fid);
    if (n > 0)
      M = zeros (n, numel (cols));
      for k = 1:numel (cols)
        M(:,k) = double (cols{k});
      endfor
      csvwrite (file, M, "-append", "precision", "%.16g");
    endif
    return;
  endif
  fmt = cell (1, numel (cols));
  data = cell (numel (cols), n);
  for k = 1:numel (cols)
    c = cols{k};
    if (wide(k))                     # every digit (double () keeps 53 bits)
      fmt{k} = "%s";
      data(k,:) = int_text (c(:));
    elseif (isnum(k))
      fmt{k} = "%.16g";
      data(k,:) = num2cell (double (c(:)));
    else
      fmt{k} = "%s";
      c = c(:);
      str = cellfun ("isclass", c, "char");
      c(! str) = cellfun (@cell_text, c(! str), "UniformOutput", false);
      q = str & ! cellfun ("isempty", regexp (c, '[,"\r\n]', "once"));
      c(q) = cellfun (@csv_quote, c(q), "UniformOutput", false);
      data(k,:) = c;
    endif
  endfor
  fprintf (fid, [strjoin(fmt, ",") "\n"], data{:});
  fclose (fid);
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
    s = strjoin (arrayfun (@(v) sprintf ("%.16g", v), double (x), "UniformOutput", false), " ");
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
