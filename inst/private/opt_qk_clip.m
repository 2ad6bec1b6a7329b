## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{pairs} =} opt_qk_clip (@var{fname}, @var{params}, @var{spec})
## @deftypefnx {} {[@var{params}, @var{report}] =} opt_qk_clip (@var{fname}, @var{pairs}, @var{params}, @var{maxlogits})
## The @qcode{"QKClip"} option of @code{muon_optimizer} and its application in
## @code{muon_step}.
##
## First form: check @var{spec} (@code{@{@}}: none; one cell @code{@{QNAME, KNAME,
## "Heads", h, @dots{}@}} or a cell of them, the rest @code{qk_clip} options) against
## @var{params} by a dry run of @code{qk_clip} on each pair (no parameter in two pairs, or
## twice in one), and return the pairs as a struct array (fields @code{q}, @code{k},
## @code{heads}, @code{args}), 0 x 1 for none.
##
## Second form: after an applied step, clip each pair of @var{params} with
## @code{maxlogits.(QNAME)}, the largest logit per head that the caller measured; @var{report}
## has a field per QNAME: @code{clipped} and @code{eta} of @code{qk_clip}'s info.
## @end deftypefn

function [out, report] = opt_qk_clip (fname, a, b, maxlogits)
  if (nargin == 3)
    out = check (fname, a, b);
  else
    [out, report] = apply (fname, a, b, maxlogits);
  endif
endfunction

function pairs = check (fname, params, spec)
  pairs = struct ("q", {}, "k", {}, "heads", {}, "args", {})(:);
  if (isempty (spec))
    return;
  endif
  if (iscell (spec) && ! isempty (spec) && ischar (spec{1}))
    spec = {spec};
  endif
  if (! iscell (spec) || ! all (cellfun (@is_pair, spec(:))))
    error ("muonlab:badArg",
           "%s: QKCLIP must be a cell {QNAME, KNAME, \"Heads\", h, ...} or a cell of them.",
           fname);
  endif
  seen = {};
  for i = 1:numel (spec)
    s = spec{i};
    for n = s(1:2)
      if (! isfield (params, n{1}))
        error ("muonlab:badArg", "%s: QKCLIP names '%s', which is not a parameter.", fname,
               n{1});
      elseif (any (strcmp (n{1}, seen)))       # it would be clipped twice a step
        error ("muonlab:badArg", "%s: QKCLIP must name each parameter once: '%s' is named twice.",
               fname, n{1});
      endif
      seen(end+1) = n;
    endfor
    ## the option names first (an unknown or misspelt one, as qk_clip words it): a
    ## misspelt "Heads" is named, not reported as missing; [] values pass every row
    nm = s(3:2:end);
    parse_options (sprintf ("%s: QKCLIP pair '%s', '%s'", fname, s{1:2}), "qk_clip",
                   reshape ([nm; repmat({[]}, size (nm))], 1, []));
    j = find (strcmpi (s(3:2:end), "Heads"), 1, "last");
    if (isempty (j) || ! (isnumeric (s{2*j+2}) && isscalar (s{2*j+2})))
      error ("muonlab:badArg", "%s: QKCLIP pair '%s', '%s' must give \"Heads\", h.", fname,
             s{1:2});
    endif
    h = double (s{2*j+2});
    mq = rows (params.(s{1}));
    if (! (isreal (h) && h >= 1 && h <= mq && h == fix (h)))
      error ("muonlab:badArg",
             "%s: QKCLIP pair '%s', '%s': HEADS must be a whole number from 1 to the rows of %s (%d).",
             fname, s{1:2}, s{1}, mq);
    endif
    try                                       # qk_clip's own checks, worded for FNAME
      qk_clip (params.(s{1}), params.(s{2}), zeros (1, h), s{3:end});
    catch err
      id = err.identifier;                    # (error with an empty id raises nothing)
      if (! strncmp (id, "muonlab:", 8))
        id = "muonlab:badArg";
      endif
      error (id, "%s: QKCLIP pair '%s', '%s': %s", fname, s{1:2},
             regexprep (err.message, '^qk_clip: ', ""));
    end_try_catch
    pairs(end+1,1) = struct ("q", s{1}, "k", s{2}, "heads", h, "args", {s(3:end)});
  endfor
endfunction

function ok = is_pair (s)
  ok = iscell (s) && numel (s) >= 2 && iscellstr (s(1:2)) && mod (numel (s), 2) == 0;
endfunction

function [params, report] = apply (fname, pairs, params, S)
  report = struct ();
  for i = 1:numel (pairs)
    p = pairs(i);
    if (! (isstruct (S) && isscalar (S) && isfield (S, p.q)))
      error ("muonlab:badArg",
             "%s: MAXLOGITS must be a struct with a field '%s' (the largest logit of each head).",
             fname, p.q);
    endif
    [q, k] = deal (params.(p.q), params.(p.k));
    try                                 # its errors name MAXLOGITS.QNAME, not S
      [q, k, info] = qk_clip (host_array (q), host_array (k), S.(p.q), p.args{:});
    catch err
      msg = regexprep (err.message, '^qk_clip: ', "");
      if (strncmp (msg, "S ", 2))
        msg = sprintf ("MAXLOGITS.%s %s", p.q, msg(3:end));
      else
        msg = sprintf ("QKCLIP pair '%s', '%s': %s", p.q, p.k, msg);
      endif
      error (err.identifier, "%s: %s", fname, msg);
    end_try_catch
    params.(p.q) = like (q, params.(p.q));     # device parameters: back where they were
    params.(p.k) = like (k, params.(p.k));
    report.(p.q) = struct ("clipped", info.clipped, "eta", info.eta);
  endfor
endfunction

function x = like (x, was)
  if (isa (was, "muon_gpuarray"))
    x = muon_gpu (x, "Device", was.Device, "Class", was.Storage);
  endif
endfunction
