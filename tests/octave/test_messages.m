## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_messages ()
## Suite (run with @code{test test_messages}): mistakes get a "did you mean" (issue 25).
## An unknown option name suggests the closest valid name(s) and lists the valid set; a
## torch, DeepSpeed or Dion name is recognised and mapped (@qcode{"\"momentum\" ... is
## \"Beta\" here"}); a misspelt value of a list (precision, schedule, design, demo)
## suggests the closest; an integer, logical or char G is told to convert itself; a
## mismatched ZeRO state says which part of its key differs.  The expected messages are
## written out in full here.  The README's table "Coming from torch, DeepSpeed or Dion"
## holds the rows of inst/private/option_aliases.m, and every muonlab option it maps to is
## an option of some function's table (inst/private/option_spec.m).
## @end deftypefn

function test_messages ()
  help test_messages
endfunction

%!function msg = err_of (f)
%!  msg = "";
%!  try
%!    f ();
%!  catch e
%!    msg = e.message;
%!    assert (strncmp (e.identifier, "muonlab:", 8), "id %s", e.identifier);
%!  end_try_catch
%!endfunction

%!function out = in_private (fn, varargin)
%!  here = pwd ();
%!  unwind_protect
%!    cd (fullfile (fileparts (which ("muon_ns")), "private"));
%!    out = feval (fn, varargin{:});
%!  unwind_protect_cleanup
%!    cd (here);
%!  end_unwind_protect
%!endfunction

%!shared G, ns_opts, u
%! G = randn (8, 16);
%! ## the valid sets as the option tables list them (Trace last: muon_ns's own)
%! ns = test_options ("private", "option_spec", "muon_ns").names;
%! ns_opts = strjoin (ns(! strcmp (ns, "Trace")), ", ");
%! u = [strjoin(test_options ("private", "option_spec", "muon_update").names, ", ") "."];

%!test
%! ## a misspelt option name: the closest name, then the valid set
%! assert (err_of (@() muon_ns (G, "Precison", "bf16")),
%!         ["muon_ns: unknown option 'Precison'; did you mean 'Precision'? Options: " ns_opts ", Trace."]);
%! assert (err_of (@() muon_ns (G, "Foo", 1)),
%!         ["muon_ns: unknown option 'Foo'. Options: " ns_opts ", Trace."]);
%! m = err_of (@() muon_update (G, [], "nesterof", true));
%! assert (strncmp (m, "muon_update: unknown option 'nesterof'; did you mean 'Nesterov'? Options: ", numel ("muon_update: unknown option 'nesterof'; did you mean 'Nesterov'? Options: ")), m);

%!test
%! ## torch's and DeepSpeed's names: recognised, mapped in the message
%! assert (err_of (@() muon_update (G, [], "momentum", 0.9)),
%!         ["muon_update: unknown option 'momentum': \"momentum\" (torch.optim.Muon, DeepSpeed) is \"Beta\" here: the same number (0.95). Options: " u]);
%! assert (err_of (@() muon_update (G, [], "ns_steps", 5)),
%!         ["muon_update: unknown option 'ns_steps': \"ns_steps\" (torch.optim.Muon, DeepSpeed) is \"Steps\" here: the same count (5). Options: " u]);
%! ## a peer's name, or muonlab's own, that another function takes: which ones
%! assert (err_of (@() muon_update (G, [], "weight_decay", 0.1)),
%!         ["muon_update: unknown option 'weight_decay': \"weight_decay\" (torch.optim.Muon, DeepSpeed, Dion) is \"WeightDecay\" here, an option of muon_optimizer, not of muon_update. Options: " u]);
%! assert (err_of (@() muon_update (G, [], "gradient_clipping", 1)),
%!         ["muon_update: unknown option 'gradient_clipping': \"gradient_clipping\" (DeepSpeed) is \"ClipNorm\" here, an option of muon_optimizer and zero_train_step, not of muon_update. Options: " u]);
%! assert (err_of (@() muon_update (G, [], "WeightDecay", 0.1)),
%!         ["muon_update: unknown option 'WeightDecay': an option of muon_optimizer, not of muon_update. Options: " u]);
%! m = err_of (@() muon_optimizer (struct ("w", G), "gradient_clipping", 1));
%! assert (strncmp (m, "muon_optimizer: unknown option 'gradient_clipping': \"gradient_clipping\" (DeepSpeed) is \"ClipNorm\" here", numel ("muon_optimizer: unknown option 'gradient_clipping': \"gradient_clipping\" (DeepSpeed) is \"ClipNorm\" here")), m);

%!test
%! ## misspelt values of a list
%! assert (err_of (@() muon_ns (G, "Precision", "bf61")),
%!         "muon_ns: PRECISION must be 'double', 'single', 'bf16' or 'fp16'; did you mean 'bf16'?");
%! m = err_of (@() muon_ns (G, "Coefficients", "polar_expres"));
%! assert (strncmp (m, "muon_ns: unknown coefficient schedule 'polar_expres'; did you mean 'polar_express'", numel ("muon_ns: unknown coefficient schedule 'polar_expres'; did you mean 'polar_express'")), m);
%! assert (! isempty (strfind (m, " Coefficient schedules: keller, you, polar_express, ")));
%! m = err_of (@() zero_cost ([4 4], 2, "Design", "layerwise_lp"));
%! assert (regexp (m, "^zero_cost: DESIGN must be 'reference', .* or 'layerwise_ns_cost'; did you mean 'layerwise_lpt'\\?$") == 1);
%! m = err_of (@() muonlab_demo ("plan_at_scal"));
%! assert (regexp (m, "; did you mean 'plan_at_scale'\\?$") > 0);

%!test
%! ## int8 (and logical, char) input: told to convert, not "must be a real numeric matrix"
%! assert (err_of (@() muon_ns (int8 (G))),
%!         "muon_ns: G must be a double or single matrix, not int8 (convert it: double (G)).");
%! assert (err_of (@() muon_update (G > 0, [])),
%!         "muon_update: G must be a double or single matrix, not logical (convert it: double (G)).");

%!test
%! ## a ZeRO state of another call: which part of the key differs
%! L = zero_layout ({[8 8], [8 8]}, 2);
%! g = repmat ({ones(8)}, 2, 2);
%! [~, s] = zero_muon_step (L, g, []);
%! L4 = zero_layout ({[8 8], [8 8]}, 4);
%! assert (err_of (@() zero_muon_step (L4, repmat ({ones(8)}, 4, 2), s)),
%!         "zero_muon_step: STATE belongs to another layout, variant, momentum form or communicator: its world is 2, this call's 4; its local ranks is 2, this call's 4.");
%! assert (err_of (@() zero_muon_step (L, g, s, "MomentumForm", "sgd")),
%!         "zero_muon_step: STATE belongs to another layout, variant, momentum form or communicator: its form is 'ema', this call's 'sgd'.");

%!test
%! ## the README's table is option_aliases, and each target is an option of some function
%! A = in_private ("option_aliases");
%! readme = fullfile (fileparts (which ("muon_ns")), "..", "README.md");
%! if (! exist (readme, "file"))         # an installed package: no README beside inst/
%!   printf ("    (no README.md: the table check needs the source tree)\n");
%!   return;
%! endif
%! txt = fileread (readme);
%! k = strfind (txt, "## Coming from torch, DeepSpeed or Dion");
%! assert (numel (k), 1);
%! sec = txt(k:end);
%! sec = sec(1:strfind (sec, "\n## ")(1));
%! rows_ = regexp (sec, '^\| `([^`]+)` \| ([^|]+) \| `"([^"]+)"` \| ([^\n]+) \|$', "tokens", "lineanchors");
%! R = vertcat (rows_{:});
%! assert (size (R), size (A));
%! assert (strtrim (R), A);
%! keys = in_private ("option_spec");
%! names = {};
%! for k = keys
%!   names = [names, in_private("option_spec", k{1}).names];
%! endfor
%! for k = 1:rows (A)
%!   assert (any (strcmp (A{k,3}, names)), "alias %s -> %s: no such option", A{k,1}, A{k,3});
%!   ## (a loss scaler field's own name up to case, hysteresis, is no option name: its row
%!   ## answers it typed as an option; inside the struct it is the field)
%!   own = in_private ("option_spec", "loss_scaler").names;
%!   if (any (strcmp (A{k,3}, own)))
%!     names_k = names(! strcmp (names, A{k,3}));
%!   else
%!     names_k = names;
%!   endif
%!   assert (! any (strcmpi (A{k,1}, names_k)), "alias %s is an option name itself", A{k,1});
%! endfor

%!test
%! ## suggest: close words only, best first
%! assert (in_private ("suggest", "Precison", {"Method", "Precision", "Steps"}), {"Precision"});
%! assert (in_private ("suggest", "ns_steps", {"Steps", "Restarts"}), {"Steps"});
%! assert (isempty (in_private ("suggest", "xyzzy", {"Steps", "Restarts"})));

%!test
%! ## every id the package raises is one of the status table's (the gateways') or of
%! ## inst/private/error_ids.m, and README's table "Error and warning ids" lists exactly
%! ## those a user can meet, each with its kind
%! root = fullfile (fileparts (which ("muon_ns")), "..");
%! S = __muon_lists__ ().status;
%! E = in_private ("error_ids");
%! known = [S.id, E(:,1)'];
%! assert (numel (unique (known)), numel (known));
%! if (! exist (fullfile (root, "inst"), "dir"))   # an installed package: no source tree
%!   return;
%! endif
%! files = [glob(fullfile (root, "inst", "*.m")); glob(fullfile (root, "inst", "*", "*.m"));
%!          glob(fullfile (root, "demo", "*.m")); glob(fullfile (root, "mex", "*.[ch]"))];
%! used = {};
%! for f = files'
%!   txt = fileread (f{1});
%!   t = regexp (txt, 'muonlab:([A-Za-z]+)', "tokens");
%!   if (strcmp (f{1}(end-1:end), ".c"))   # the gateways: muon_mex_error (fname, "id", ...)
%!     t = [t, regexp(txt, '(?:muon_mex_error|fail) \((?:[a-z_"]+, )?"([a-z][A-Za-z]+)",', "tokens")];
%!   endif
%!   t = [t{:}];
%!   for id = unique (t)
%!     assert (any (strcmp (id{1}, known)), "%s raises muonlab:%s, in no table", f{1}, id{1});
%!   endfor
%!   used = [used, t];
%! endfor
%! assert (numel (files) > 60 && numel (unique (used)) > 15);
%! readme = fullfile (root, "README.md");
%! if (! exist (readme, "file"))
%!   return;
%! endif
%! txt = fileread (readme);
%! k = strfind (txt, "## Error and warning ids");
%! assert (numel (k), 1);
%! sec = txt(k:end);
%! sec = sec(1:strfind (sec, "\n## ")(1));
%! rows_ = regexp (sec, '^\| (`[^|]+`) \| (error|warning) \| [^\n]+ \|$', "tokens", "lineanchors");
%! listed = {};
%! kinds = {};
%! for r = rows_
%!   ids = regexp (r{1}{1}, '`([A-Za-z]+)`', "tokens");
%!   listed = [listed, [ids{:}]];
%!   kinds = [kinds, repmat(r{1}(2), 1, numel (ids))];
%! endfor
%! user = E(! strcmp (E(:,2), "internal"), :);
%! want = [S.id, user(:,1)'];
%! assert (sort (listed), sort (want));
%! for k = 1:numel (listed)
%!   j = find (strcmp (listed{k}, user(:,1)));
%!   if (isempty (j))
%!     kind = merge (strcmp (listed{k}, "nonFiniteResult"), "warning", "error");
%!   else
%!     kind = user{j,2};
%!   endif
%!   assert (strcmp (kinds{k}, kind), "README: %s is a %s", listed{k}, kind);
%! endfor
