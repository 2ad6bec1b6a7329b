## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} zero_train_check (@var{fname}, @var{st}, @var{nl}, @var{P}, @var{shapes}, @var{scaler})
## The fields of a @code{zero_train_step} state passed back that the loop reads, on
## @var{nl} local ranks and @var{P} matrices of sizes @var{shapes} (P x 2), with the loss
## scaler @var{scaler} of the call's options: each a @code{muonlab:badState} error naming
## the field (its key is compared by the caller; @code{st.zero} is checked by
## @code{zero_muon_step}).
## @end deftypefn

function zero_train_check (fname, st, nl, P, shapes, scaler)
  cnt = @(x) isnumeric (x) && isreal (x) && isscalar (x) && x >= 0 && x == fix (x);
  bad = @(f, what) error ("muonlab:badState", "%s: STATE.%s must be %s.", fname, f, what);
  if (! (cnt (st.micro) && st.micro < st.key.accum_steps))
    bad ("micro", "an integer in [0, AccumulationSteps)");
  endif
  for f = {"step", "skipped"}
    if (! cnt (st.(f{1})))
      bad (f{1}, "a non-negative integer");
    endif
  endfor
  if (! (islogical (st.pending) && isscalar (st.pending)))
    bad ("pending", "true or false");
  endif
  if (! (ischar (st.why) && (isempty (st.why) || isrow (st.why))))
    bad ("why", "a string");
  endif
  for f = {"ns_calls", "bytes"}
    x = st.(f{1});
    if (! (isnumeric (x) && isreal (x) && isequal (size (x), [nl 1]) && all (x >= 0)))
      bad (f{1}, sprintf ("a %d x 1 vector of counts", nl));
    endif
  endfor
  sz = {"accum", [nl P]; "upd", [nl 1]; "owned", [nl 1]; "full", [1 P]; "ref", [1 P]};
  for i = 1:rows (sz)
    if (! (iscell (st.(sz{i,1})) && isequal (size (st.(sz{i,1})), sz{i,2})))
      bad (sz{i,1}, sprintf ("a %d x %d cell", sz{i,2}));
    endif
  endfor
  for i = 1:numel (st.accum)
    [~, p] = ind2sub ([nl P], i);
    x = st.accum{i};
    if (! (isempty (x) || (isa (x, "double") && isreal (x)
                           && isequal (size (x), shapes(p,:)))))
      bad (sprintf ("accum{%d}", i), "[] or a real matrix of the parameter's size");
    endif
  endfor
  ## PerMicroBatchNS's sums so far: each the size of what the next micro-batch adds
  dbl = @(y) isa (y, "double") && isreal (y);
  for p = 1:P
    x = st.full{p};
    if (! (isempty (x) || (dbl (x) && isequal (size (x), shapes(p,:)))))
      bad (sprintf ("full{%d}", p), "[] or a real matrix of the parameter's size");
    endif
  endfor
  for l = 1:nl
    o = st.owned{l};
    n = 0;
    if (! isempty (o))
      if (! (isnumeric (o) && isreal (o) && isequal (size (o), [P 2]) && all (o(:) >= 0)
             && all (o(:) == fix (o(:))) && all (o(:,1) <= o(:,2))
             && all (o(:,2) <= prod (shapes, 2))))
        bad (sprintf ("owned{%d}", l), sprintf ("[] or a %d x 2 list of element ranges", P));
      endif
      n = sum (o(:,2) - o(:,1));
    endif
    x = st.upd{l};
    if (! (isempty (x) || (dbl (x) && iscolumn (x) && numel (x) == n)))
      bad (sprintf ("upd{%d}", l),
           sprintf ("[] or a real column of %d elements (the ranges of STATE.owned{%d})", n, l));
    endif
  endfor
  sc = st.scaler;
  if (! (isstruct (sc) && isscalar (sc) && isempty (setxor (fieldnames (sc),
                                                             fieldnames (scaler)))
         && isnumeric (sc.scale) && isreal (sc.scale) && isscalar (sc.scale)
         && isfinite (sc.scale) && sc.scale > 0 && cnt (sc.good_steps)
         && cnt (sc.overflows)))
    bad ("scaler", "the loss scaler of a previous call");
  endif
endfunction
