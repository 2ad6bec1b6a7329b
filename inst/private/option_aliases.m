## -*- texinfo -*-
## @deftypefn {} {@var{A} =} option_aliases ()
## The option names of the peers that muonlab spells differently: one row per name, four
## columns: the peer's name (as its users type it), the peers that use it, muonlab's
## option and a note on the value.  @code{parse_options} reads it to answer an unknown
## name a torch or DeepSpeed user types (@qcode{"'momentum' is 'Beta' here"}), and the
## README's table "Coming from torch, DeepSpeed or Dion" shows the same rows
## (tests/octave/test_options.m checks that they agree).  A name that is muonlab's own up
## to case (lr, nesterov, eps) needs no row: the names are case-insensitive.
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
  };

endfunction
