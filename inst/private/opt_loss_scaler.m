## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} opt_loss_scaler (@var{fname}, @var{L})
## The loss scaler of option @qcode{"LossScaler"} @var{L} (@code{muon_optimizer},
## @code{zero_train_step}): @qcode{"none"}, @qcode{"dynamic"} (the option table
## @qcode{"loss_scaler"}'s defaults), @qcode{"deepspeed"} (DeepSpeed's fp16 defaults:
## InitScale 2^16, GrowthInterval 1000, Hysteresis 2, MinScale 1, GrowthRule
## @qcode{"deepspeed"}) or a struct of its fields over the table's defaults
## (LOSSSCALER.<field> in messages naming @var{fname}).  @var{s} has the settings
## @code{enabled}, @code{growth_interval}, @code{backoff}, @code{growth},
## @code{min_scale}, @code{hysteresis}, @code{consecutive} and @code{growth_rule}, and the
## running @code{scale}, @code{good_steps}, @code{overflows} and @code{hysteresis_left}
## (a checkpoint of an older muonlab lacks the last four fields: @code{opt_scaler_upgrade});
## @code{opt_scaler_update} advances it.
## @end deftypefn

function s = opt_loss_scaler (fname, L)
  pairs = {};
  if (ischar (L) && any (strcmpi (L, {"none", "dynamic", "deepspeed"})))
    enabled = ! strcmpi (L, "none");
    if (strcmpi (L, "deepspeed"))
      pairs = {"InitScale", 2^16, "GrowthInterval", 1000, "MinScale", 1, "Hysteresis", 2, ...
               "GrowthRule", "deepspeed"};
    endif
  elseif (isstruct (L) && isscalar (L))
    enabled = true;
    pairs = reshape ([fieldnames(L).'; struct2cell(L).'], 1, []);
  else
    error ("muonlab:badArg",
           "%s: LOSSSCALER must be 'none', 'dynamic', 'deepspeed' or a struct.", fname);
  endif
  v = parse_options (fname, "loss_scaler", pairs);
  if (v.min_scale > v.init_scale)
    error ("muonlab:badArg",
           "%s: LOSSSCALER.MinScale must be positive and at most InitScale.", fname);
  endif
  s = struct ("enabled", enabled, "scale", v.init_scale, "growth_interval", v.growth_interval,
              "backoff", v.backoff, "growth", v.growth, "min_scale", v.min_scale,
              "good_steps", 0, "overflows", 0, "hysteresis", v.hysteresis,
              "consecutive", v.consecutive, "growth_rule", v.growth_rule,
              "hysteresis_left", v.hysteresis);
  if (! enabled)
    s.scale = 1;
  endif
endfunction
