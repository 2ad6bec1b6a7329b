## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} opt_loss_scaler (@var{fname}, @var{L})
## The loss scaler of option @qcode{"LossScaler"} @var{L} (@code{muon_optimizer},
## @code{zero_train_step}): @qcode{"none"}, @qcode{"dynamic"} (the option table
## @qcode{"loss_scaler"}'s defaults) or a struct of its fields over those defaults
## (LOSSSCALER.<field> in messages naming @var{fname}).  @var{s} has @code{enabled},
## @code{scale}, @code{growth_interval}, @code{backoff}, @code{growth}, @code{min_scale},
## @code{good_steps} and @code{overflows}; @code{opt_scaler_update} advances it.
## @end deftypefn

function s = opt_loss_scaler (fname, L)
  pairs = {};
  if (ischar (L) && any (strcmpi (L, {"none", "dynamic"})))
    enabled = strcmpi (L, "dynamic");
  elseif (isstruct (L) && isscalar (L))
    enabled = true;
    pairs = reshape ([fieldnames(L).'; struct2cell(L).'], 1, []);
  else
    error ("muonlab:badArg", "%s: LOSSSCALER must be 'none', 'dynamic' or a struct.", fname);
  endif
  v = parse_options (fname, "loss_scaler", pairs);
  if (v.min_scale > v.init_scale)
    error ("muonlab:badArg",
           "%s: LOSSSCALER.MinScale must be positive and at most InitScale.", fname);
  endif
  s = struct ("enabled", enabled, "scale", v.init_scale, "growth_interval", v.growth_interval,
              "backoff", v.backoff, "growth", v.growth, "min_scale", v.min_scale,
              "good_steps", 0, "overflows", 0);
  if (! enabled)
    s.scale = 1;
  endif
endfunction
