## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{S} =} option_compile (@var{groups}, @var{pass}, @dots{})
## @deftypefnx {} {@var{marker} =} option_compile ()
## One option table of @code{option_spec} (@var{groups}, a cell of its row tables)
## compiled for @code{parse_options}; with no argument, the default that marks a required
## option.
## @end deftypefn

## S for parse_options: names (own rows, then the names passed through to the table of
## `pass`), sorted and row (lower-case names sorted, and their rows), nown, field, kind (1 enum, 2 int, 3 real, 4 logical, 5 string, 6 intvec,
## 7 custom, 8 any), arg, label (for messages), what, defaults (the output struct),
## required, REQUIRED, unknown (the word of the unknown-name error).  Settings: "label", a
## format for the name in messages (default: the name upper-cased), "unknown" (default
## "option"), "default", {field, value, ...} overriding defaults.
function S = option_compile (groups, pass, varargin)
  if (nargin == 0)
    S = "(required option)";            # a value no option takes
    return;
  endif
  if (nargin < 2)
    pass = "";
  endif
  cfg = struct ("label", "", "unknown", "option", "default", {{}});
  for i = 1:2:numel (varargin)
    cfg.(varargin{i}) = varargin{i+1};
  endfor
  R = vertcat (cell (0, 6), groups{:});
  n = size (R, 1);
  kinds = {"enum", "int", "real", "logical", "string", "intvec", "custom", "any"};
  S.names = R(:,1).';
  S.nown = n;
  S.field = R(:,2).';
  S.kind = zeros (1, n);
  S.arg = R(:,4).';
  S.label = cell (1, n);
  S.what = R(:,6).';
  S.defaults = struct ();
  S.required = [];
  S.REQUIRED = option_compile ();
  S.unknown = cfg.unknown;
  for j = 1:n
    [name, field, kind, arg, dflt] = R{j,1:5};
    S.kind(j) = find (strcmp (kind, kinds));
    if (isempty (cfg.label))
      S.label{j} = upper (name);
    else
      S.label{j} = sprintf (cfg.label, name);
    endif
    switch (kind)
      case "real"
        t = regexp (arg, '^([\[(])\s*(\S+)\s*,\s*(\S+)\s*([\])])$', "tokens", "once");
        S.arg{j} = [str2double(t{2}), str2double(t{3}), t{1} == "(", t{4} == ")"];
      case "intvec"
        if (isscalar (arg))
          S.arg{j} = [arg Inf];
        endif
    endswitch
    if (isempty (S.what{j}))
      S.what{j} = must_be (kind, S.arg{j});
    endif
    if (isequal (dflt, S.REQUIRED))
      S.required(end+1) = j;
    endif
    S.defaults.(field) = dflt;
  endfor
  for i = 1:2:numel (cfg.default)
    S.defaults.(cfg.default{i}) = cfg.default{i+1};
  endfor
  if (! isempty (pass))
    P = option_spec (pass);
    S.names = [S.names, P.names];
  endif
  S.pass = pass;
  ## for lookup: the lower-case names sorted, and the row of each
  [S.sorted, S.row] = sort (lower (S.names));
  if (numel (unique (S.sorted)) < numel (S.sorted))
    error ("muonlab:internal", "option_spec: an option of '%s' is listed twice.",
           strjoin (S.names, ", "));
  endif
endfunction

## The standard end of "NAME must be ..." for a kind and its Arg.
function s = must_be (kind, a)
  switch (kind)
    case "enum"
      s = sprintf ("'%s', ", a{:});
      s = s(1:end-2);
      k = strfind (s, ", ");
      if (! isempty (k))
        s = [s(1:k(end)-1) " or" s(k(end)+1:end)];
      endif
    case "int"
      if (isinf (a(2)) && a(1) == 1)
        s = "a positive integer";
      elseif (isinf (a(2)) && a(1) == 0)
        s = "a non-negative integer";
      else
        s = sprintf ("an integer from %d to %d", a(1), a(2));
      endif
    case "real"
      if (isinf (a(2)) && a(1) == 0)
        s = merge (a(3), "a positive finite scalar", "a non-negative finite scalar");
      elseif (isinf (a(2)))
        s = sprintf ("a finite scalar %s %g", merge (a(3), "greater than", "of at least"), a(1));
      else
        s = sprintf ("a scalar in %s%g, %g%s", merge (a(3), "(", "["), a(1), a(2),
                     merge (a(4), ")", "]"));
      endif
    case "logical"
      s = "true or false";
    case "string"
      s = "a string";
    case "intvec"
      s = sprintf ("a vector of %s integers", merge (a(1) == 0, "non-negative",
                                                     sprintf ("at least %d", a(1))));
      if (isfinite (a(2)))
        s = sprintf ("%s (at most %d)", s, a(2));
      endif
    otherwise
      s = "valid";
  endswitch
endfunction
