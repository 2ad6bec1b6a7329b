## -*- texinfo -*-
## @deftypefn {} {@var{P} =} load_profile (@var{fname}, @var{what})
## A machine profile for @code{zero_cost}: @var{what} is a shipped name (@qcode{"h100"} or
## @qcode{"h100_node"}: @file{profiles/h100_node.json} beside the package's functions), a
## JSON file (e.g. the CPU profile @code{make bench} measures), or a struct with the same
## fields.  Required: @code{devices_per_node}, @code{gemm_peak} (FLOP/s per precision:
## @code{double}, @code{single}, @code{bf16}, @code{fp16}), @code{mem_bw}, @code{intra} and
## @code{inter} (each @code{bandwidth} in bytes/s and @code{latency} in s per ring step, and
## optionally per-collective structs @code{allreduce}, @code{reduce_scatter},
## @code{all_gather}, @code{all_to_all} with their own @code{bandwidth} / @code{latency});
## optional with defaults 1, 1, 1, 1, 0 and 0: @code{gemm_efficiency},
## @code{mem_efficiency}, @code{intra.efficiency}, @code{inter.efficiency},
## @code{ns_call_overhead} (seconds per Newton-Schulz call) and @code{step_overhead} (fixed
## seconds per step).
## @end deftypefn

function P = load_profile (fname, what)
  if (ischar (what) && isrow (what))
    here = fileparts (fileparts (mfilename ("fullpath")));
    if (any (strcmpi (what, {"h100", "h100_node"})))
      file = fullfile (here, "profiles", "h100_node.json");
    else
      file = what;
    endif
    if (! exist (file, "file"))
      error ("muonlab:badArg",
             "%s: PROFILE must be \"h100\", a profile JSON file or a struct; '%s' is neither.",
             fname, what);
    endif
    try
      P = jsondecode (fileread (file));
    catch err
      error ("muonlab:badArg", "%s: profile '%s' is not valid JSON (%s).", fname, file,
             err.message);
    end_try_catch
  elseif (isstruct (what) && isscalar (what))
    P = what;
  else
    error ("muonlab:badArg",
           "%s: PROFILE must be \"h100\", a profile JSON file or a struct.", fname);
  endif
  need = {"devices_per_node", "gemm_peak", "mem_bw", "intra", "inter"};
  for k = 1:numel (need)
    if (! isfield (P, need{k}))
      error ("muonlab:badArg", "%s: the profile has no field '%s'.", fname, need{k});
    endif
  endfor
  dflt = struct ("gemm_efficiency", 1, "mem_efficiency", 1, "ns_call_overhead", 0,
                 "step_overhead", 0, "name", "profile");
  for f = fieldnames (dflt).'
    if (! isfield (P, f{1}))
      P.(f{1}) = dflt.(f{1});
    endif
  endfor
  for lv = {"intra", "inter"}
    L = P.(lv{1});
    if (! (isstruct (L) && isfield (L, "bandwidth") && isfield (L, "latency")
           && isnumeric (L.bandwidth) && isscalar (L.bandwidth) && L.bandwidth > 0
           && isnumeric (L.latency) && isscalar (L.latency) && L.latency >= 0))
      error ("muonlab:badArg",
             "%s: profile field '%s' needs a positive bandwidth and a latency >= 0.", fname,
             lv{1});
    endif
    if (! isfield (L, "efficiency"))
      P.(lv{1}).efficiency = 1;
    endif
  endfor
  for p = {"double", "single", "bf16", "fp16"}
    if (! (isfield (P.gemm_peak, p{1}) && isnumeric (P.gemm_peak.(p{1}))
           && isscalar (P.gemm_peak.(p{1})) && P.gemm_peak.(p{1}) > 0))
      error ("muonlab:badArg", "%s: profile field 'gemm_peak.%s' must be a positive rate.",
             fname, p{1});
    endif
  endfor
endfunction
