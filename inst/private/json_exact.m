## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{D}, @var{msg}] =} json_exact (@var{text}, @dots{})
## @code{jsondecode (@var{text}, @dots{})} with every number, wherever it lands (a table's
## column, a field of a nested struct, a cell, a matrix), read correctly rounded: Octave 7's
## @code{jsondecode} reads about one number in five 1 ulp off.  Each number of the text
## (outside its strings) is replaced by its index, an integer that @code{jsondecode} reads
## exactly; the text so tagged is decoded (the layout of what @code{jsondecode} returns
## does not depend on the values of the numbers); and each index in it is replaced by the
## number @code{sscanf} reads from the text.  Each @code{null} is tagged alike and comes
## back as NaN wherever it stands (@code{jsonencode} writes NaN as null; @code{jsondecode}
## gives [] for a null that is a member of an object, as a struct field); @code{NaN} and
## @code{Infinity} come back as @code{jsondecode} reads them; -0 and -0.0 as -0.  @var{text}
## may hold bytes that are no UTF-8 inside its strings (@code{jsondecode} passes them
## through), and the escape of a NUL character, @code{\u0000}, which @code{jsondecode}
## cuts a string at: it is decoded as another control character the text does not use,
## then made NUL again in every string.
##
## @var{msg}: empty, or @code{jsondecode}'s error for @var{text} as given (@var{D} then
## []), also where a number is too big for a double.  (One difference: a zero with an
## exponent past 308, @code{0e400}, which @code{jsondecode} refuses as too big, is read as
## the 0 it is.)
## @end deftypefn

function [D, msg] = json_exact (text, varargin)
  D = [];
  msg = "";
  [text, nul] = nul_escapes (text);
  t = json_blank_strings (text);                # the text outside strings
  ## the numbers: the runs of the characters of numbers that start with a digit or
  ## -digit, each a JSON number (else jsondecode reads the text, and gives its error)
  nc = false (1, 256);
  nc(double ("-+.0123456789eE") + 1) = true;
  d = diff ([false, nc(double (t) + 1), false]);
  rs = find (d == 1);
  re = find (d == -1) - 1;
  num = isdigit (t(rs)) | (t(rs) == "-" & rs < re & isdigit (t(min (rs + 1, numel (t)))));
  s0 = rs(num);
  e0 = re(num);
  x = [];
  in = runs (numel (t), s0, e0);
  if (isempty (s0) || json_numbers (t, in, s0, e0))
    u = t;
    u(! in) = " ";
    x = sscanf (u, "%f");
    if (numel (x) != numel (s0) || any (isinf (x)))
      x = [];                                   # (too big for a double)
    else                                        # the nulls: tagged too, read as NaN
      n0 = strfind (t, "null");
      [s0, k] = sort ([s0, n0]);
      e0 = [e0, n0 + 3](k);
      x = [x; NaN(numel (n0), 1)](k);
      in = runs (numel (t), s0, e0);
      if (any (s0(2:end) <= e0(1:end-1) + 1))   # a null touching a number ("null2"): no
        x = [];                                 # JSON; two tags would read as one (12):
      endif                                     # jsondecode of the text gives its error
    endif
  endif
  if (! isempty (x))
    try
      D = jsondecode (tagged (text, s0, e0, in), varargin{:});
      ok = true;
    catch
      ok = false;
    end_try_catch
    if (ok)
      D = nul_put (put (D, x), nul);
      return;
    endif
  endif
  try                          # no numbers, a number that is no JSON number or is too big
    D = nul_put (jsondecode (text, varargin{:}), nul);   # for a double: as jsondecode
  catch err                                     # reads the text, or its error
    msg = err.message;
  end_try_catch
endfunction

## the characters of the runs S0(i) to E0(i) of an N-character text
function in = runs (n, s0, e0)
  in = zeros (1, n + 1);
  in(s0) = 1;
  in(e0 + 1) -= 1;
  in = logical (cumsum (in(1:end-1)));
endfunction

## TEXT with each escape \u0000 (a backslash that is no escaped one, then u0000) made the
## escape of the first control character NUL (1 to 31) that TEXT does not hold, raw or
## escaped; 0 where there is none to change (or no character free: left as it is)
function [text, nul] = nul_escapes (text)
  nul = 0;
  p = strfind (text, '\u0000');
  if (isempty (p))
    return;
  endif
  nb = find (text != "\\");                  # odd runs of \ before u0000: escapes
  last = zeros (size (p));
  k = lookup (nb, p - 1);
  last(k > 0) = nb(k(k > 0));
  p = p(mod (p - last, 2) == 1);
  for c = 1:31
    if (! any (text == c) && isempty (strfind (text, ['\u' sprintf("%04x", c)]))
        && isempty (strfind (text, ['\u' sprintf("%04X", c)])))
      nul = c;
      break;
    endif
  endfor
  if (nul && ! isempty (p))
    text(p + (2:5).') = repmat (sprintf ("%04x", nul).', 1, numel (p));
  else
    nul = 0;
  endif
endfunction

## D with the character NUL (see nul_escapes) made NUL again in every string
function D = nul_put (D, nul)
  if (! nul)
    return;
  endif
  if (ischar (D))
    D(D == nul) = char (0);
  elseif (isstruct (D))
    for f = fieldnames (D).'
      c = cellfun (@(v) nul_put (v, nul), {D.(f{1})}, "UniformOutput", false);
      [D.(f{1})] = c{:};
    endfor
  elseif (iscell (D))
    D = cellfun (@(v) nul_put (v, nul), D, "UniformOutput", false);
  endif
endfunction

## whether each run S0 to E0 of the characters -+.0-9eE of T (IN: theirs), which starts
## with a digit or -digit, is a JSON number, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?:
## a check of each character at once (a regexp is slow on many numbers)
function ok = json_numbers (t, in, s0, e0)
  n = numel (t);
  dg = isdigit (t);
  dp = [false, dg(1:end-1)];                    # a digit before, a digit after
  dn = [dg(2:end), false];
  prv = [" ", t(1:end-1)];
  nxt = [t(2:end), " "];
  dn2 = [dg(3:end), false(1, min (2, n))];      # a digit two after
  start = false (1, n);
  start(s0) = true;
  isE = in & (t == "e" | t == "E");
  isDot = in & t == ".";
  isSign = in & (t == "+" | t == "-");
  z = s0 + (t(s0) == "-");                      # the first digit
  es = find (isE);                              # the e's and the dots, and their runs
  dots = find (isDot);
  ke = lookup (s0, es);
  kd = lookup (s0, dots);
  epos = zeros (1, numel (s0));                 # the e of each run, or 0
  epos(ke) = es;
  ok = (all (dg(e0))                                                # a digit last
       && ! any (isDot & ! (dp & dn))                               # . between digits
       && ! any (isE & ! (dp & (dn | ((nxt == "+" | nxt == "-")     # e after a digit,
                                     & dn2))))                      # [sign] digit next
       && ! any (isSign & ! (prv == "e" | prv == "E") & ! start)      # - first, or e sign
       && ! any (t(z) == "0" & z < e0 & dg(min (z + 1, n)))          # no leading zero
       && numel (unique (ke)) == numel (ke) && numel (unique (kd)) == numel (kd)   # one
       && all (epos(kd) == 0 | epos(kd) > dots));                   # ., one e; . first
endfunction

## TEXT with its numbers (at S0 to E0; IN, their characters) replaced by 1, 2, ...: each
## character outside them and each digit of the indices put where it goes, at once
function out = tagged (text, s0, e0, in)
  n = numel (s0);
  len = e0 - s0 + 1;                            # of the numbers
  tl = floor (log10 (1:n)) + 1;                 # of their indices
  digits = sprintf ("%d", 1:n);
  step = zeros (1, numel (text) + 1);           # where each character of TEXT goes
  step(e0 + 1) = tl - len;
  pos = (1:numel (text)) + cumsum (step(1:end-1));
  keep = ! in;
  out = blanks (numel (text) + sum (tl - len));
  out(pos(keep)) = text(keep);
  first = pos(s0);                              # where each index goes
  at = repelem (first - cumsum ([0, tl(1:end-1)]) - 1, tl) + (1:numel (digits));
  out(at) = digits;
endfunction

## D with every finite double in it (an index into X) replaced by the number it indexes
function D = put (D, x)
  if (isa (D, "double"))
    m = isfinite (D);
    D(m) = x(D(m));
  elseif (isstruct (D))
    if (isempty (D))
      return;
    endif
    for f = fieldnames (D).'
      c = put_cell ({D.(f{1})}, x);
      [D.(f{1})] = c{:};
    endfor
  elseif (iscell (D))
    D = put_cell (D, x);
  endif
endfunction

## put for every element of the cell C: its doubles at once, its structs and cells each
function c = put_cell (c, x)
  d = cellfun ("isclass", c, "double");
  if (any (d(:)))
    v = c(d);
    r = cellfun ("size", v, 1);
    k = cellfun ("size", v, 2);
    if (all (r(:) == r(1) & k(:) == k(1)) && all (cellfun ("ndims", v)(:) == 2))
      c(d) = mat2cell (put ([v{:}], x), r(1), repmat (k(1), 1, numel (v)));   # one size
      d(:) = false;
    endif
  endif
  if (any (d(:)))
    v = c(d);
    flat = cellfun (@(a) a(:), v, "UniformOutput", false);
    flat = put (vertcat (flat{:}), x);
    sz = cellfun (@size, v(:), "UniformOutput", false);
    parts = mat2cell (flat, cellfun ("numel", v(:)), 1);
    c(d) = cellfun (@reshape, parts, sz, "UniformOutput", false);
  endif
  for i = find (cellfun ("isclass", c, "struct") | cellfun ("isclass", c, "cell"))(:).'
    c{i} = put (c{i}, x);
  endfor
endfunction

