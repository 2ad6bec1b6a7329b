## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{msg} =} family_state (@var{where}, @var{st}, @var{opts}, @var{m}, @var{n}, @var{cls})
## What is wrong with the Muon-family part of the @code{muon_update} state @var{st} (a
## struct with @code{momentum}, @code{step}, @code{form} and maybe @code{family}) for the
## parsed @code{muon_update} options @var{opts}, an @var{m} x @var{n} matrix and the
## momentum's class @var{cls}; "" when nothing (no final period; @var{where} names the
## state, as @qcode{"STATE"} or @qcode{"OPT.muon.W"}).  The one definition of a family
## buffer, for @code{muon_update} (@code{run_update}), @code{muon_step},
## @code{muon_save_state} and @code{muon_load_state}:
## @itemize
## @item @code{family.algorithm} is the options' ALGORITHM (or @qcode{"muon"} when the
## options run the core's Muon); a state of a family algorithm past step 0 must have the
## field @code{family};
## @item the buffer is real, not sparse, and not negative where it is a second moment;
## @item NorMuon's and AdaMuon's V: m x 1 (NormAxis @qcode{"row"}), 1 x n
## (@qcode{"col"}) or m x n (@qcode{"element"}), @qcode{"shorter"} the row axis when
## m >= n, @qcode{"conv_kernel"} out x in x kh for a 4-D weight (@code{opts.conv_shape},
## set by the caller to the weight's size) and the row axis otherwise; Dion's Q: min (m, n) x min (Rank, min (m, n)); NAMO's v: a scalar in double
## (fp64, whatever the momentum's class); empty for Muon, Scion and Dion2;
## @item every non-empty buffer but NAMO's in the momentum's class @var{cls} (a class
## name, or a cell of the classes allowed: @code{muon_update} also takes G's, as a
## momentum kept in another class than G's computes in G's).
## @end itemize
## @end deftypefn

function msg = family_state (where, st, opts, m, n, cls)
  msg = "";
  a = opts.algorithm;
  family = (! strcmp (a, "muon") || opts.norm_scale != 1
            || ! strcmp (opts.eps_placement, "add"));
  if (! isfield (st, "family"))
    if (family && ! strcmp (a, "muon") && st.step > 0)
      msg = sprintf ("%s.family must hold the state of ALGORITHM '%s'", where, a);
    endif
    return;
  endif
  f = st.family;
  if (! (isstruct (f) && isscalar (f) && all (isfield (f, {"algorithm", "buffer"}))
         && ischar (f.algorithm) && isfloat (f.buffer) && isreal (f.buffer)
         && ! issparse (f.buffer)
         && (strcmp (f.algorithm, a) || (! family && strcmp (f.algorithm, "muon")))))
    msg = sprintf ("%s.family must hold the state of ALGORITHM '%s'", where, a);
    return;
  endif
  B = f.buffer;
  if (any (strcmp (f.algorithm, {"normuon", "adamuon", "namo"})) && any (B(:) < 0))
    msg = sprintf ("%s.family.buffer must not be negative (the second moment of %s)", where,
                   upper (f.algorithm));
    return;
  endif
  bcls = cellstr (cls);
  switch (f.algorithm)
    case {"normuon", "adamuon"}
      [axis, sz] = family_axis (opts, f.algorithm, m, n);
      what = sprintf ("the %s V of NORMAXIS '%s'",
                      strjoin (arrayfun (@num2str, sz, "UniformOutput", false), " x "), axis);
    case "dion"
      nb = min (m, n);
      r = opts.rank;
      if (isempty (r) || r > nb)
        r = nb;
      endif
      sz = [nb r];
      what = sprintf ("the %d x %d Q of DION", sz);
    case "namo"
      sz = [1 1];
      bcls = {"double"};
      what = "the scalar v of NAMO";
    otherwise
      sz = [0 0];
      what = sprintf ("empty for ALGORITHM '%s'", f.algorithm);
  endswitch
  if (! isequal (size (B), sz))
    msg = sprintf ("%s.family.buffer must be %s", where, what);
  elseif (! isempty (B) && ! any (strcmp (class (B), bcls)))
    msg = sprintf ("%s.family.buffer must be %s, as %s's buffer is", where,
                   strjoin (bcls, " or "), upper (f.algorithm));
  endif
endfunction
