## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{P} =} load_profile (@var{fname}, @var{what})
## A machine profile for @code{zero_cost}: @var{what} is a shipped name (@qcode{"h100"} or
## @qcode{"h100_node"}: @file{profiles/h100_node.json} beside the package's functions), a
## JSON file (e.g. the CPU profile @code{make bench} measures; a regular file of at most
## @code{max_config_bytes} (16 MiB) nesting at most 200 deep, checked before it is read:
## a folder, a FIFO or a device is refused, as by @code{muon_model}), or a struct with the
## same fields.  Every number is a real finite scalar.  Required: @code{devices_per_node} (a
## positive integer, at most 65536: the largest @var{world} of @code{zero_cost}),
## @code{gemm_peak} (FLOP/s per precision, each positive: @code{double},
## @code{single}, @code{bf16}, @code{fp16}), @code{mem_bw} (bytes/s, positive), @code{intra}
## and @code{inter} (each @code{bandwidth} in bytes/s, positive, and @code{latency} in s per
## ring step, >= 0; optionally @code{efficiency} in (0, 1], default 1, and per-collective
## structs @code{allreduce}, @code{reduce_scatter}, @code{all_gather}, @code{all_to_all}
## with their own @code{bandwidth} and / or @code{latency}, in the same ranges).  Optional
## with defaults 1, 1, 0 and 0: @code{gemm_efficiency} and @code{mem_efficiency} (in
## (0, 1]), @code{ns_call_overhead} (seconds per Newton-Schulz call, >= 0) and
## @code{step_overhead} (fixed seconds per step, >= 0).  Optional: @code{memory_bytes} (a
## device's memory, positive; a design whose peak passes it is marked, not refused:
## @code{summary.memory_over}), and, only described, @code{name} and @code{description}
## (strings) and @code{sources} (a string or a list of them).  Any other field is refused
## (@code{muonlab:badArg}, naming it), as is a field out of its range.  @var{P} holds the
## numbers as doubles, with the defaults filled in.
## @end deftypefn

function P = load_profile (fname, what)
  if (ischar (what) && isrow (what))
    here = fileparts (fileparts (mfilename ("fullpath")));
    if (any (strcmpi (what, {"h100", "h100_node"})))
      file = fullfile (here, "profiles", "h100_node.json");
    else
      file = what;
    endif
    [~, err] = stat (file);      # relative to the working folder, not the load path (as
    if (err != 0)                # muon_model's files): regular_file and fileread agree
      error ("muonlab:badArg",
             "%s: PROFILE must be \"h100\", a profile JSON file or a struct; '%s' is neither.",
             fname, what);
    endif
    ## a folder, a FIFO or a device such as /dev/zero is refused before a byte is read (a
    ## FIFO would block, /dev/zero never ends), and so is a file over max_config_bytes
    regular_file (fname, file, "max_config_bytes");
    try
      txt = fileread (file);
    catch err
      error ("muonlab:badArg", "%s: cannot read the profile '%s' (%s).", fname, file,
             err.message);
    end_try_catch
    json_check_depth (fname, file, txt);
    try
      P = jsondecode (txt);
    catch err
      error ("muonlab:badArg", "%s: profile '%s' is not valid JSON (%s).", fname, file,
             err.message);
    end_try_catch
    if (! (isstruct (P) && isscalar (P)))
      error ("muonlab:badArg", "%s: profile '%s' must hold one JSON object.", fname, file);
    endif
  elseif (isstruct (what) && isscalar (what))
    P = what;
  else
    error ("muonlab:badArg",
           "%s: PROFILE must be \"h100\", a profile JSON file or a struct.", fname);
  endif

  ## every field: its kind (below) and whether it is required
  top = {"devices_per_node", "count", true; "gemm_peak", "peaks", true;
         "mem_bw", "positive", true; "intra", "link", true; "inter", "link", true;
         "gemm_efficiency", "efficiency", false; "mem_efficiency", "efficiency", false;
         "ns_call_overhead", "nonneg", false; "step_overhead", "nonneg", false;
         "name", "text", false; "description", "text", false; "sources", "texts", false;
         "memory_bytes", "positive", false};
  P = check_struct (fname, P, "", top);
  dflt = struct ("gemm_efficiency", 1, "mem_efficiency", 1, "ns_call_overhead", 0,
                 "step_overhead", 0, "name", "profile");
  for f = fieldnames (dflt).'
    if (! isfield (P, f{1}))
      P.(f{1}) = dflt.(f{1});
    endif
  endfor
  for lv = {"intra", "inter"}
    if (! isfield (P.(lv{1}), "efficiency"))
      P.(lv{1}).efficiency = 1;
    endif
  endfor
endfunction

## S (a struct, the field NAME of the profile; "" for the profile itself) with its fields
## checked against SPEC (name, kind, required) and its numbers made double.
function S = check_struct (fname, S, name, spec)
  if (! isempty (name))
    pre = [name "."];
  else
    pre = "";
  endif
  for k = find ([spec{:,3}])
    if (! isfield (S, spec{k,1}))
      error ("muonlab:badArg", "%s: the profile has no field '%s%s'.", fname, pre,
             spec{k,1});
    endif
  endfor
  known = spec(:,1).';
  for f = fieldnames (S).'
    k = find (strcmp (f{1}, known));
    if (isempty (k))
      error ("muonlab:badArg", "%s",
             unknown_name (fname, "profile field", [pre f{1}], strcat (pre, known)));
    endif
    S.(f{1}) = check_field (fname, S.(f{1}), [pre f{1}], spec{k,2});
  endfor
endfunction

## x, the profile field NAME of kind KIND, checked
function x = check_field (fname, x, name, kind)
  link = {"bandwidth", "positive", true; "latency", "nonneg", true;
          "efficiency", "efficiency", false};
  coll = {"bandwidth", "positive", false; "latency", "nonneg", false};
  switch (kind)
    case "peaks"
      prec = core_lists ().lists.precision;     # a rate per precision of the core
      need_struct (fname, x, name, sprintf ("a struct of GEMM rates: %s and %s",
                                            strjoin (prec(1:end-1), ", "), prec{end}));
      n = numel (prec);
      spec = [prec(:), repmat({"positive"}, n, 1), repmat({true}, n, 1)];
      x = check_struct (fname, x, name, spec);
    case "link"
      need_struct (fname, x, name, ["a struct of bandwidth, latency and optional ", ...
                                    "efficiency and per-collective structs"]);
      x = check_struct (fname, x, name, [link; {"allreduce", "coll", false;
                                                "reduce_scatter", "coll", false;
                                                "all_gather", "coll", false;
                                                "all_to_all", "coll", false}]);
    case "coll"
      need_struct (fname, x, name, "a struct of bandwidth and / or latency");
      x = check_struct (fname, x, name, coll);
    case "text"
      if (! (ischar (x) && (isrow (x) || isempty (x))))
        error ("muonlab:badArg", "%s: profile field '%s' must be a string.", fname, name);
      endif
    case "texts"
      if (! ((ischar (x) && (isrow (x) || isempty (x))) || iscellstr (x)))
        error ("muonlab:badArg",
               "%s: profile field '%s' must be a string or a list of strings.", fname, name);
      endif
    otherwise                           # a number
      ok = isnumeric (x) && isreal (x) && isscalar (x) && isfinite (x);
      switch (kind)
        case "count"                    # at most zero_cost's largest WORLD
          L = core_lists ().limits;
          wmax = min (L.zero_max_world, L.comm_max_world);
          ok = ok && x >= 1 && x == fix (x) && x <= wmax;
          what = sprintf ("a positive integer (at most %d)", wmax);
        case "positive"
          ok = ok && x > 0;
          what = "a positive finite number";
        case "nonneg"
          ok = ok && x >= 0;
          what = "a finite number >= 0";
        case "efficiency"
          ok = ok && x > 0 && x <= 1;
          what = "a number in (0, 1]";
      endswitch
      if (! ok)
        error ("muonlab:badArg", "%s: profile field '%s' must be %s.", fname, name, what);
      endif
      x = double (x);
  endswitch
endfunction

function need_struct (fname, x, name, what)
  if (! (isstruct (x) && isscalar (x)))
    error ("muonlab:badArg", "%s: profile field '%s' must be %s.", fname, name, what);
  endif
endfunction
