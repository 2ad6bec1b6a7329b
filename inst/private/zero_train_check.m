## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} zero_train_check (@var{fname}, @var{st}, @var{L}, @var{variant}, @var{ranks}, @var{shapes}, @var{scaler})
## The fields of a @code{zero_train_step} state passed back that the loop reads, on the
## local ranks @var{ranks} (0-based) and the matrices of sizes @var{shapes} (P x 2) of the
## layout @var{L}, with the loss scaler @var{scaler} of the call's options: each a
## @code{muonlab:badState} error naming the field (its key is compared by the caller).  Of
## @code{st.pending} and @code{st.why}, only inside a PerMicroBatchNS window (micro > 0) and
## together.  Of @code{st.zero}, the design's state, the lengths of its momentum buffers (and reference
## momenta), against @var{variant}'s map: the loop folds a gradient into them itself
## (PoisonMomentum); the rest of it is checked by @code{zero_muon_step}.
## @end deftypefn

function zero_train_check (fname, st, L, variant, ranks, shapes, scaler)
  nl = numel (ranks);
  P = rows (shapes);
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
  ## a pending skip (its reason in why) is held only inside a PerMicroBatchNS window: the
  ## loop sets both when a micro-batch's update overflows and clears them where it ends
  if (st.pending && st.micro == 0)
    bad ("pending", "false between windows (STATE.micro is 0)");
  elseif (st.pending && ! st.key.per_micro_ns)
    bad ("pending", "false without PerMicroBatchNS (only its window holds a pending skip)");
  elseif (st.pending == isempty (st.why))
    bad ("why", "the reason of a pending skip: non-empty exactly when STATE.pending is true");
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
  zero_lengths (fname, st.zero, L, variant, ranks, st.key.bucket_size);
  sc = st.scaler;
  if (! (isstruct (sc) && isscalar (sc) && isempty (setxor (fieldnames (sc),
                                                             fieldnames (scaler)))
         && isnumeric (sc.scale) && isreal (sc.scale) && isscalar (sc.scale)
         && isfinite (sc.scale) && sc.scale > 0 && cnt (sc.good_steps)
         && cnt (sc.overflows) && cnt (sc.hysteresis_left) && sc.hysteresis_left >= 1
         && sc.hysteresis_left <= scaler.hysteresis))
    bad ("scaler", "the loss scaler of a previous call");
  endif
endfunction

## STATE.zero.momentum{l} (and .reference{l}) of a state that took a step: the length of
## rank ranks(l)'s buffer in the design's map (one buffer shared by the local ranks is the
## reference's own form)
function zero_lengths (fname, z, L, variant, ranks, bucket)
  if (isempty (z))
    return;
  endif
  if (! (isstruct (z) && isscalar (z)
         && all (isfield (z, {"step", "momentum", "reference", "has_ref"}))))
    error ("muonlab:badState",
           "%s: STATE.zero must be [] or the design's state of a previous call.", fname);
  endif
  if (! (isnumeric (z.step) && isscalar (z.step) && z.step > 0))
    return;                                   # zero_muon_step names a bad step
  endif
  bufs = {"momentum", variant};
  if (isequal (z.has_ref, true) && ! strcmp (variant, "reference"))  # (its own is [])
    bufs(end+1,:) = {"reference", "reference"};
  endif
  for b = 1:rows (bufs)
    m = z.(bufs{b,1});
    len = zero_shard_map (L, bufs{b,2}, bucket).len;
    if (! (iscell (m) && (numel (m) == numel (ranks)
                          || (numel (m) == 1 && strcmp (bufs{b,2}, "reference")))))
      error ("muonlab:badState",
             "%s: STATE.zero.%s must be a cell of one momentum vector per local rank.",
             fname, bufs{b,1});
    endif
    for l = 1:numel (m)
      want = len(ranks(l) + 1);
      if (! (isa (m{l}, "double") && isreal (m{l}) && iscolumn (m{l})
             && numel (m{l}) == want))
        error ("muonlab:badState",
               "%s: STATE.zero.%s{%d} must be a real double column of %d elements (rank %d's under '%s').",
               fname, bufs{b,1}, l, want, ranks(l), bufs{b,2});
      endif
    endfor
  endfor
endfunction
