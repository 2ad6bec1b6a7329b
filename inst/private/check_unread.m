## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} check_unread (@var{fname}, @var{args}, @var{algorithm})
## @code{muon_update}'s refusal of an option that @var{algorithm} does not read: the
## options given in the NAME, VALUE pairs of the cell @var{args} (as the caller typed
## them, before a @qcode{"Preset"} is expanded, already validated by
## @code{parse_options}) are looked up in the table below, whatever their value (a
## default given counts); a @code{muonlab:badArg} error names all of them, in the order
## given: @qcode{"@var{fname}: ALGORITHM 'dion' does not read NESTEROV, MOMENTUMFORM."}.
## A preset's own pairs are not looked at (a preset sets every convention), nor are
## @code{muon_optimizer}'s and @code{muon_step}'s options (one option set for every
## parameter group): only @code{muon_update} calls this.
##
## What each algorithm's code reads (family_update, family_adaptive, family_dion):
## @example
## normuon, adamuon   all but Rank, DionQ0, Fraction, EFDecay
## namo               of the family's own options Beta2, VEps, VEpsPlacement
## muon, polargrad, scion   none of the family's own options (Beta2 ... EFDecay)
## dion               Beta, Rank, DionQ0, Scale, ScaleFactor, ConvScale, MomentumArith
##                    'fp64': no Nesterov, MomentumForm, muon_ns option or NormScale,
##                    EpsPlacement (its QR replaces the Newton-Schulz)
## dion2              Fraction, EFDecay, the muon_ns options, Scale, ScaleFactor,
##                    ConvScale, MomentumArith 'fp64': no Beta, Nesterov, MomentumForm
## @end example
## (DecayFirst is muon_step's and stays accepted; Experts and SplitRows have their own
## error.)
## @end deftypefn

function check_unread (fname, args, algorithm)
  persistent ns;
  if (isempty (args))
    return;
  endif
  adaptive = {"SignBeforeNS", "Beta2", "NormAxis", "VEps", "VEpsPlacement", "RMSMatch", ...
              "RMSShape", "RMSEps", "RMSEpsPlacement"};
  dion = {"Rank", "DionQ0"};
  dion2 = {"Fraction", "EFDecay"};
  switch (algorithm)
    case {"normuon", "adamuon"}
      no = [dion, dion2];
    case "namo"
      no = [setdiff(adaptive, {"Beta2", "VEps", "VEpsPlacement"}, "stable"), dion, dion2];
    case "dion"
      if (isempty (ns))                 # every muon_ns option (Trace aside)
        L = core_lists ();
        ns = [option_groups_muon("ns", L)(:,1); option_groups_muon("norm", L)(:,1)].';
      endif
      no = [adaptive, dion2, {"Nesterov", "MomentumForm"}, ns];
    case "dion2"
      no = [adaptive, dion, {"Beta", "Nesterov", "MomentumForm"}];
    otherwise                           # muon, polargrad, scion
      no = [adaptive, dion, dion2];
  endswitch
  names = args(1:2:end);
  [hit, k] = ismember (lower (names), lower (no));
  if (any (hit))
    k = unique (k(hit), "stable");
    error ("muonlab:badArg", "%s: ALGORITHM '%s' does not read %s.", fname, algorithm,
           upper (strjoin (no(k), ", ")));
  endif
endfunction
