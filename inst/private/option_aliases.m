## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{A} =} option_aliases ()
## The option names of the peers that muonlab spells differently: one row per name, four
## columns: the peer's name (as its users type it), the peers that use it, muonlab's
## option and a note on the value.  @code{parse_options} reads it to answer an unknown
## name a torch or DeepSpeed user types (@qcode{"'momentum' is 'Beta' here"}), and the
## README's table "Coming from torch, DeepSpeed or Dion" shows the same rows
## (tests/octave/test_options.m checks that they agree).  A name that is muonlab's own up
## to case (lr, nesterov, eps) needs no row: the names are case-insensitive.  The loss
## scaler's rows map to fields of the @qcode{"LossScaler"} struct (@code{muon_optimizer},
## @code{zero_train_step}): typed inside that struct they get the same answer, typed as an
## option @code{unknown_name} says which field it is (@qcode{"\"LossScaler\", struct
## (\"Hysteresis\", 2)"}); @qcode{"hysteresis"} is that field's own name up to case, so
## only the option needs its row.
## @end deftypefn

function A = option_aliases ()
  A = {
  ## peer's name          peers                                 muonlab's     the value
    "momentum",           "torch.optim.Muon, DeepSpeed",        "Beta",       "the same number (0.95)"
    "mu",                 "Dion",                               "Beta",       "the same number"
    "ns_steps",           "torch.optim.Muon, DeepSpeed",        "Steps",      "the same count (5)"
    "ns_coefficients",    "torch.optim.Muon",                   "Coefficients", "a 1 x 3 [a b c] or a schedule name"
    "weight_decay",       "torch.optim.Muon, DeepSpeed, Dion",  "WeightDecay", "muon_optimizer's, decoupled"
    "adjust_lr_fn",       "torch.optim.Muon",                   "Scale",      "original: keller, match_rms_adamw: rms, spectral_unclamped (torch 2.14): unit_rms"
    "adjust_lr",          "Dion",                               "Scale",      "spectral_norm: unit_rms, rms_norm: rms"
    "muon_lr",            "DeepSpeed",                          "MuonLR",     "muon_optimizer's"
    "adam_lr",            "DeepSpeed",                          "AdamLR",     "muon_optimizer's"
    "betas",              "DeepSpeed, Dion",                    "AdamBetas",  "muon_optimizer's, for the AdamW parameters"
    "epsilon",            "Dion",                               "Eps",        "the Newton-Schulz normalization eps"
    "gradient_clipping",  "DeepSpeed",                          "ClipNorm",   "with ClipPolicy after_ns (DeepSpeed's order)"
    "clip_grad",          "Megatron",                           "ClipNorm",   "with ClipPolicy before_ns (Megatron's order)"
    "gradient_accumulation_steps", "DeepSpeed",                 "AccumulationSteps", "muon_optimizer's, zero_train_step's"
    "ns_method",          "DeepSpeed",                          "Method",     "the same names; DeepSpeed's default is gram, muonlab's standard"
    "use_polar_express",  "Dion",                               "Coefficients", "true (Dion's default): polar_express_dion with NormScale 1.02, Eps 1e-8 (Dion's nesterov defaults to false, muonlab's Nesterov to true)"
    "use_gram_newton_schulz", "Dion",                           "Method",     "true: gram, with Dao's defaults (Dion passes its epsilon on only to Polar Express): Coefficients polar_express, Eps 1e-7, NormScale 1; Dao computes in fp16 (Precision fp16, Fused true) and returns bf16"
    "flatten",            "Dion",                               "ConvScale",  "true: flattened, for a 4-D weight; Dion also flattens a 3-D E x m x n one to E x (m n), which muonlab takes as a stack of E pages: reshape it"
    ## the loss scaler's: fields of the "LossScaler" struct (muon_optimizer, zero_train_step)
    "initial_scale_power", "DeepSpeed",                         "InitScale",  "a power p is InitScale 2^p (DeepSpeed's default 16: 2^16, muonlab's too)"
    "initial_loss_scale", "Megatron",                           "InitScale",  "the same number (Megatron's default 2^32, muonlab's 2^16)"
    "init_scale",         "torch GradScaler",                   "InitScale",  "the same number (2^16)"
    "loss_scale",         "DeepSpeed",                          "InitScale",  "0 (DeepSpeed's default) is dynamic: \"LossScaler\", \"deepspeed\"; a fixed scale s is InitScale s with GrowthInterval Inf and Backoff 1 (and MinScale s below 1)"
    "loss_scale_window",  "DeepSpeed, Megatron",                "GrowthInterval", "the same count (their default 1000, muonlab's 2000); DeepSpeed counts it as GrowthRule deepspeed does, Megatron as interval (muonlab's default)"
    "growth_interval",    "torch GradScaler",                   "GrowthInterval", "the same count (2000)"
    "backoff_factor",     "torch GradScaler",                   "Backoff",    "the same factor (0.5)"
    "growth_factor",      "torch GradScaler",                   "Growth",     "the same factor (2)"
    "min_loss_scale",     "DeepSpeed, Megatron",                "MinScale",   "the same number (1)"
    "hysteresis",         "DeepSpeed, Megatron",                "Hysteresis", "the same count (their default 2, muonlab's 1)"
    "consecutive_hysteresis", "DeepSpeed",                      "ConsecutiveHysteresis", "the same logical (false)"
  };

endfunction
