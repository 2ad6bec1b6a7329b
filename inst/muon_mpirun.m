## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{R} =} muon_mpirun (@var{np}, @var{fn}, @var{arg1}, @dots{})
## @deftypefnx {muonlab} {@var{R} =} muon_mpirun (@var{opts}, @var{fn}, @dots{})
## @deftypefnx {muonlab} {[@var{R}, @var{out}] =} muon_mpirun (@dots{})
## Run the function @var{fn} on @var{np} MPI ranks, one Octave process each, and return
## what every rank returned.
##
## @code{muon_mpirun} starts @code{mpirun -np @var{np} octave-cli} (with
## @option{--oversubscribe}, and @option{--allow-run-as-root} when run by root).  Every rank
## gets the caller's load path and working directory, calls
## @code{@var{fn} (@var{arg1}, @dots{})} (@var{fn} is a function name or handle; the
## arguments travel in a temporary .mat file, muonlab's objects as their structs, which every
## function takes; a function handle that captured one is an error) and sends back its result.  Inside @var{fn},
## @code{muon_comm ("mpi")} is the rank's communicator.  On a machine with GPUs, the
## rank with local rank r (its rank on its machine) works on device
## @code{mod (r, gpus_per_node)}: its @code{muon_comm ("nccl")}, its device arrays
## (@code{muon_gpu}) and its @qcode{"Device", "cuda"} calls alike.  Rank 0's output is streamed
## to the screen (with two outputs it is returned in @var{out} instead); the other ranks'
## output is discarded.
##
## @var{R} is a 1 x @var{np} struct array when every rank returned a scalar struct with the
## same fields, else a 1 x @var{np} cell; @code{R(r+1)} comes from rank r.  A function that
## returns nothing gives @code{struct ()} (a handle or built-in is called as a statement,
## and what it returns, if anything, is its value).
##
## @var{np} is an integer from 1 to 1024 and at most 4 times the cores here
## (@code{nproc ("all")})
## unless @code{@var{opts}.oversubscribe} is true (bounds against a typo that would start a
## runaway number of Octave processes).
##
## A rank that fails ends every rank of the job (a rank waiting in a collective would
## otherwise wait forever), and @code{muon_mpirun} raises a @code{muonlab:mpi} error that
## names the first rank to fail and why:
##
## @table @asis
## @item @qcode{"muon_mpirun: rank 1 raised: @var{message}"}
## the rank's function raised an error; the rank calls @code{MPI_Abort}.
## @item @qcode{"muon_mpirun: rank 1 returned a value save cannot write (a zero_plan: @dots{}); return the data it holds."}
## the rank's result (muonlab's results and states go as their plain structs) cannot
## travel back in a .mat file: an object, or a cell or struct holding one; the rank calls
## @code{MPI_Abort}.
## @item @qcode{"muon_mpirun: rank 1 exited with status 3 before its function returned."}
## the rank called @code{exit} (with any status, 0 included) while its function ran; it
## ends without finalizing MPI, which makes @code{mpirun} end the other ranks.
## @item @qcode{"muon_mpirun: rank 1 was killed by signal 9 (SIGKILL)."}
## the rank's process died of a signal (a crash, the kernel's out-of-memory killer,
## @code{kill}); as the shell does, an exit status above 128 reads as a signal.
## @item @qcode{"muon_mpirun: rank 1 was stopped by signal 15 (SIGTERM) (Octave caught it)."}
## Octave caught the signal (SIGTERM, SIGHUP), said so and exited with status 1.  A SIGINT
## to one rank alone ends that rank silently (status 1): it reads as
## @qcode{"muon_mpirun: rank 1 exited with status 1 before its function returned."}
## @item @qcode{"muon_mpirun: the job did not finish within 3600 s and was killed."}
## the job ran past @code{timeout}.
## @item @qcode{"muon_mpirun: the job was stopped by SIGINT and its ranks ended."}
## Ctrl-C at the terminal while the job ran: every rank is ended at once, not at the
## timeout, and the job's folder is removed.  With two outputs (the output captured),
## Octave's own interrupt comes first and returns to the prompt instead of this error; the
## ranks end and the folder goes all the same.  A SIGTERM or SIGHUP to the caller's process
## group ends the ranks too, and usually the caller's Octave, which leaves the job's folder
## in @code{tempdir} (an Octave 7 session holding a classdef object, such as a
## @code{zero_layout} result, fails its crash save and goes on; the folder is then
## removed).
## @end table
##
## The ranks never write an @file{octave-workspace} file, even when they are stopped by a
## signal.
##
## The job's folder is a fresh private folder in @code{tempdir} (any characters in
## @env{TMPDIR}, quotes included, are quoted for the shell and for Octave).
##
## @var{opts} is a struct with field @code{np} and optionally @code{oversubscribe} (true:
## NP above 4 x the cores is allowed), @code{timeout} (seconds, rounded up to whole
## milliseconds, default 3600: a guard against a hung job, which is then killed) and
## @code{mpirun_args} (extra @code{mpirun} options: a cell array of strings, one argument
## each, or a string, which is split at blanks into arguments).  The arguments reach
## @code{mpirun} as they are, each quoted for the shell that starts it, so quotes,
## @samp{$}, @samp{`} and @samp{;} in them have no special meaning (write
## @code{@{"-x", "A=x y"@}} for an argument with a blank).
##
## @example
## function s = my_rank (x)       # in my_rank.m, on the path
##   comm = muon_comm ("mpi");
##   s.rank = comm.rank;
##   s.sum = muon_collective (comm, "allreduce", x * (comm.rank + 1));
## endfunction
## R = muon_mpirun (4, "my_rank", 1);    # [R.sum] is [10 10 10 10]
## @end example
## @seealso{muon_comm, muon_collective}
## @end deftypefn

function [R, out] = muon_mpirun (np, fn, varargin)
  fname = "muon_mpirun";
  if (nargin == 2 && ischar (np) && strcmp (np, "__rank__"))
    run_rank (fn);                      # internal: the per-rank driver (see below)
    return;
  endif
  if (nargin < 2)
    print_usage ();
  endif
  ## OPTS (or NP alone): the option table "muon_mpirun" of option_spec
  if (isstruct (np) && isscalar (np))
    o = parse_options (fname, "muon_mpirun", [fieldnames(np)'; struct2cell(np)'](:)');
  else
    o = parse_options (fname, "muon_mpirun", {"np", np});
  endif
  np = o.np;
  cores = nproc ("all");                # nproc () would count OMP_NUM_THREADS
  cap = 4 * cores;
  if (np > cap && ! o.oversubscribe)
    error ("muonlab:badArg",
           "muon_mpirun: NP must be at most %d (4 x the %d cores here) unless OVERSUBSCRIBE is true.",
           cap, cores);
  endif
  extra = launcher_args (o.mpirun_args);
  if (! ((ischar (fn) && isrow (fn)) || is_function_handle (fn)))
    error ("muonlab:badArg", "muon_mpirun: FN must be a function name or handle.");
  endif
  mpirun = file_in_path (getenv ("PATH"), "mpirun");
  if (isempty (mpirun))
    error ("muonlab:notBuilt", "muon_mpirun: mpirun was not found on the PATH (install Open MPI).");
  endif
  if (exist ("__muon_comm__") != 3 || ! __muon_comm__ ("have_mpi"))
    error ("muonlab:notBuilt", "muon_mpirun: muonlab is not built with MPI (build it with mpicc on the PATH).");
  endif

  dir = private_dir (fname, tempdir ());
  unwind_protect
    ## muonlab's objects (a layout, a state) go to the ranks as their structs, which every
    ## function takes; save cannot write an object, nor one a function handle captured
    job = struct ("fn", fn, "args", {plain(varargin)}, "path", path (), "pwd", pwd ());
    try
      save ("-binary", fullfile (dir, "job.mat"), "-struct", "job");
    catch err
      for k = 1:numel (job.args)        # an argument save cannot write, named as such
        if (! can_save (job.args{k}))
          error ("muonlab:badArg",
                 "muon_mpirun: argument %d (a %s) is a value save cannot write (%s); pass the data it holds.",
                 k, class (job.args{k}), err.message);
        endif
      endfor
      error ("muonlab:badArg",
             "muon_mpirun: FN captures a value save cannot write (%s); pass it as an argument (muonlab's objects go as their structs) or capture struct (X).",
             err.message);
    end_try_catch
    octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
    if (! exist (octave, "file"))
      octave = "octave-cli";
    endif
    here = fileparts (mfilename ("fullpath"));
    code = sprintf ("addpath (%s); muon_mpirun ('__rank__', %s);", oq (here), oq (dir));
    ## rank.sh records how its Octave ended, one line "rank status" appended to ends.txt
    ## before mpirun can learn of it (so the first failure is the first line), and the
    ## signal Octave reports when it caught one (it then exits with status 1) in
    ## signal_<r>.txt, and turns an exit with status 0 but no result into a failure, so
    ## that mpirun ends the job
    write_lines (fullfile (dir, "rank.sh"), {
      "#!/bin/sh"
      "# one rank of muon_mpirun: rank 0 streams its output (and keeps a copy), the others"
      "# write rank_<r>.log"
      "r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-0}}}"
      "if [ \"$r\" = 0 ]; then"
      "  { \"$1\" --no-gui --norc --silent --no-history --eval \"$2\"; echo $? >\"$3/status_0\"; } 2>&1 | tee \"$3/rank_0.log\""
      "  s=$(cat \"$3/status_0\" 2>/dev/null || echo 1)"
      "else"
      "  \"$1\" --no-gui --norc --silent --no-history --eval \"$2\" >\"$3/rank_$r.log\" 2>&1"
      "  s=$?"
      "fi"
      "sed -n 's/^fatal: caught signal \\(.*\\) -- stopping myself.*/\\1/p' \"$3/rank_$r.log\" | head -n 1 >\"$3/signal_$r.txt\""
      "echo \"$r $s\" >>\"$3/ends.txt\""
      "if [ \"$s\" = 0 ] && [ ! -f \"$3/rank_$r.mat\" ]; then exit 1; fi"
      "exit \"$s\""});
    flags = "--oversubscribe --quiet";
    if (getuid () == 0)
      flags = ["--allow-run-as-root " flags];
    endif
    ## the limit in whole milliseconds (at least one): what timeout(1) is given and what the
    ## error names (it was given ceil (TIMEOUT): 1 s for 0.5, while the error said 0.5 s)
    limit = ceil (o.timeout * 1000) / 1000;
    guard = "";
    if (! isempty (file_in_path (getenv ("PATH"), "timeout")))
      guard = sprintf ("timeout -k 10 %.15g ", limit);
    endif
    cmd = sprintf ("%s%s %s -np %d %s sh %s %s %s %s", guard, sq (mpirun), flags, np,
                   strjoin (cellfun (@sq, extra, "UniformOutput", false), " "),
                   sq (fullfile (dir, "rank.sh")), sq (octave), sq (code), sq (dir));
    if (nargout > 1)
      cmd = [cmd " 2>&1"];
    endif
    ## an Octave that has initialized MPI (a singleton, or a rank of a job) carries the job's
    ## variables: drop them, so that mpirun starts a job of its own (all but the user's MCA
    ## settings, OMPI_MCA_* and PMIX_MCA_* (PMIX_MCA_gds=hash, say), and of those the ones
    ## mpirun sets for its ranks: a rank's OMPI_MCA_ess_base_jobid and _vpid made a nested
    ## mpirun fail in ORTE's rml_oob_send).
    ## timeout(1) puts the job in a process group of its own, out of reach of the terminal's
    ## Ctrl-C: this shell (in Octave's group) takes SIGINT, SIGTERM and SIGHUP and ends the
    ## job with SIGTERM (timeout passes it on, mpirun ends its ranks), noting it in
    ## interrupted.txt.  mpirun may exit before its ranks have: after a kill or a stop this
    ## shell waits (10 s at most) until no process runs the job's rank code (its command
    ## line names the job's folder), then kills what is left, so that nothing of the job
    ## outlives the call
    write_lines (fullfile (dir, "launch.sh"), {
      "#!/bin/sh"
      "for v in $(env | sed -n 's/^\\(PMIX_[A-Za-z0-9_]*\\|PMI_[A-Za-z0-9_]*\\|OMPI_[A-Za-z0-9_]*\\)=.*/\\1/p'); do"
      ["  case $v in OMPI_MCA_ess*|OMPI_MCA_pmix*|OMPI_MCA_orte_*|OMPI_MCA_initial_wdir|" ...
       "PMIX_MCA_mca_base_component_show_load_errors) unset \"$v\";;"]
      "    OMPI_MCA_*|PMIX_MCA_*) ;; *) unset \"$v\";; esac"
      "done"
      [cmd " &"]
      "pid=$!"
      ["stopped=" sq(fullfile (dir, "interrupted.txt"))]
      "stop () { echo \"$1\" >\"$stopped\"; kill -TERM \"$pid\" 2>/dev/null; }"
      "trap 'stop SIGINT' INT; trap 'stop SIGTERM' TERM; trap 'stop SIGHUP' HUP"
      "wait \"$pid\"; s=$?"
      "while kill -0 \"$pid\" 2>/dev/null; do wait \"$pid\"; s=$?; done"
      ## the ranks' sh (dir/rank.sh) and Octave (code: '...', 'dir')), by a pattern that
      ## does not match grep's own command line
      ["m=" sq([ere(dir) "/rank[.]sh|" ere(oq (dir)) "[)]"])]
      "left () { grep -laE -- \"$m\" /proc/[0-9]*/cmdline 2>/dev/null; }"
      "if [ \"$s\" = 124 ] || [ \"$s\" = 137 ] || [ -f \"$stopped\" ]; then"
      "  n=0; while [ -n \"$(left)\" ] && [ \"$n\" -lt 50 ]; do sleep 0.2; n=$((n+1)); done"
      "  for f in $(left); do p=${f#/proc/}; kill -KILL \"${p%/cmdline}\" 2>/dev/null; done"
      "fi"
      "exit \"$s\""});
    launch = sprintf ("sh %s", sq (fullfile (dir, "launch.sh")));
    t0 = tic ();
    if (nargout > 1)
      [status, out] = system (launch);
    else
      fflush (stdout);
      status = system (launch, false);
    endif
    R = mpirun_collect (dir, np, status, limit, toc (t0));
  unwind_protect_cleanup
    confirm_recursive_rmdir (false, "local");
    [~] = rmdir (dir, "s");
  end_unwind_protect
endfunction

## Whether save can write x (into a file that is removed at once).
function ok = can_save (x)
  f = [tempname() ".mat"];
  try
    save ("-binary", f, "x");
    ok = true;
  catch
    ok = false;
  end_try_catch
  if (exist (f, "file"))
    unlink (f);
  endif
endfunction

## X with every muon_result and muon_state in it (at any depth of structs and cells) made
## its plain struct: a state through state_plain, as muon_export does, a layout or a
## model through layout_plain (one made before `clear functions` is a muon_state, a
## zero_layout_result, ... still, but no muon_result, and Octave's own struct of it holds
## a state's kind and s, a layout's private plan).
function x = plain (x)
  if (isa (x, "muon_state"))
    x = plain (state_plain (x));
  elseif (isa (x, "zero_layout_result") || isa (x, "muon_model_result"))
    x = plain (layout_plain (x));       # (also one made before `clear functions`)
  elseif (isa (x, "muon_result"))
    x = plain (struct (x));
  elseif (isstruct (x))
    for f = fieldnames (x).'
      for k = 1:numel (x)
        x(k).(f{1}) = plain (x(k).(f{1}));
      endfor
    endfor
  elseif (iscell (x))
    x = cellfun (@plain, x, "UniformOutput", false);
  endif
endfunction

## The per-rank driver: no workspace dump, the caller's path and directory, MPI up first (so
## that any rank can abort the job), fn, then its result to rank_<r>.mat, or its error to
## error_<r>.txt and MPI_Abort.  Until the result is saved, an exit leaves MPI unfinalized
## (MUONLAB_MPI_AT_EXIT, mex/muon_mex_mpi.c), so that mpirun ends the other ranks; after it,
## Octave's normal end finalizes MPI on every rank.
function run_rank (dir)
  no_workspace_dump (dir);
  job = load (fullfile (dir, "job.mat"));
  path (job.path);
  cd (job.pwd);
  setenv ("MUONLAB_MPI_AT_EXIT", "skip");
  r = -1;
  try
    comm = muon_comm ("mpi");
    r = comm.rank;
    nout = -1;                     # unknown: a handle, a built-in, varargout
    try
      nout = nargout (job.fn);
    catch
    end_try_catch
    if (nout == 0)
      feval (job.fn, job.args{:});
      out = struct ();
    elseif (nout > 0)
      out = feval (job.fn, job.args{:});
    else                           # as a statement: a value it returns lands in ans
      clear ans;
      feval (job.fn, job.args{:});
      out = struct ();
      if (exist ("ans", "var") == 1)
        out = ans;
      endif
    endif
    out = plain (out);             # save cannot write a classdef object, nor one inside
    tmp = fullfile (dir, sprintf (".rank_%d.mat", r));
    try                            # an object save cannot write: named as such
      save ("-binary", tmp, "out");
    catch err
      [~] = unlink (tmp);
      error ("muonlab:mpi",
             "muon_mpirun: rank %d returned a value save cannot write (a %s: %s); return the data it holds.",
             r, class (out), err.message);
    end_try_catch
    rename (tmp, fullfile (dir, sprintf ("rank_%d.mat", r)));
    setenv ("MUONLAB_MPI_AT_EXIT", "finalize");
  catch err
    if (r < 0)
      r = str2double (getenv ("OMPI_COMM_WORLD_RANK"));
      r(isnan (r)) = 0;
    endif
    write_lines (fullfile (dir, sprintf ("error_%d.txt", r)), {err.message});
    if (strcmp (err.identifier, "muonlab:mpi") && ! isempty (err.stack)
        && ! isempty (regexp (err.stack(1).name, 'run_rank$', "once")))   # raised here
      write_lines (fullfile (dir, sprintf ("own_%d.txt", r)), {"the driver's own error"});
    endif
    q = regexp (err.message, mpirun_told_pattern (), "tokens", "once");
    if (! isempty (q))                  # that rank raises its own: let it write it first
      f = fullfile (dir, sprintf ("error_%s.txt", q{1}));
      for t = 1:50
        if (exist (f, "file"))
          break;
        endif
        pause (0.1);
      endfor
    endif
    if (exist ("comm", "var"))
      __muon_comm__ ("abort", sprintf ("rank %d: %s", r, err.message));
    endif
    fprintf (stderr, "rank %d: %s\n", r, err.message);
    exit (1);
  end_try_catch
endfunction

## Octave dumps its workspace to octave-workspace in the working directory (the caller's)
## when a signal ends it (SIGTERM from mpirun or from the timeout, SIGHUP) or it crashes:
## none of that, and any other dump goes to the job's folder, which is removed.
function no_workspace_dump (dir)
  octave_core_file_name (fullfile (dir, "octave-workspace"));
  for f = {"crash_dumps_octave_core", "sighup_dumps_octave_core", "sigterm_dumps_octave_core"}
    if (exist (f{1}) == 5)              # built-in functions (Octave may retire them)
      feval (f{1}, false);
    endif
  endfor
endfunction

## The extra mpirun arguments as a cell of words: a cell array of strings as it is, a string
## split at blanks.  They are quoted one by one for sh (sq), never interpreted.
function w = launcher_args (a)
  if (ischar (a) && (isempty (a) || isrow (a)))
    w = regexp (a, '\s+', "split");
    w = w(! cellfun ("isempty", w));
  elseif (iscellstr (a) && all (cellfun (@(x) isempty (x) || isrow (x), a(:))))
    w = a(:)';
  else
    error ("muonlab:badArg",
           "muon_mpirun: MPIRUN_ARGS must be a string or a cell array of strings.");
  endif
endfunction

## STR as an Octave single-quoted string literal.
function s = oq (str)
  s = ["'" strrep(str, "'", "''") "'"];
endfunction

## STR as an extended regular expression that matches STR alone.
function s = ere (str)
  s = regexprep (str, '([.\[\]{}()\\*+?^$|])', '\\$1');
endfunction

## STR quoted for sh.
function s = sq (str)
  s = ["'" strrep(str, "'", "'\\''") "'"];
endfunction

function write_lines (name, lines)
  fid = fopen (name, "w");
  if (fid < 0)
    error ("muonlab:mpi", "muon_mpirun: cannot write %s.", name);
  endif
  fprintf (fid, "%s\n", lines{:});
  fclose (fid);
endfunction

%!demo
%! ## two MPI ranks (one Octave process each), when mpirun and the MPI build are there
%! if (isempty (file_in_path (getenv ("PATH"), "mpirun")) || ! __muon_comm__ ("have_mpi"))
%!   disp ("muon_mpirun needs mpirun and a build with MPI (make with mpicc found)");
%! else
%!   R = muon_mpirun (2, "muon_info");     # each rank runs muon_info () and returns its struct
%!   printf ("%d ranks answered\n", numel (R));
%! endif

%!testif ; ! isempty (file_in_path (getenv ("PATH"), "mpirun")) && __muon_comm__ ("have_mpi")
%! [R, out] = muon_mpirun (2, "muon_comm", "self");
%! assert (size (R), [1 2]);
%! assert ({R.kind}, {"self", "self"});

%!testif ; ! isempty (file_in_path (getenv ("PATH"), "mpirun")) && __muon_comm__ ("have_mpi")
%! ## a result object inside what a rank returns comes back as its plain struct
%! R = muon_mpirun (2, @() struct ("info", muon_info ()));
%! assert (isstruct (R(2).info) && isfield (R(2).info, "gemm"));

%!error <Invalid call> muon_mpirun (2)
%!error <^muon_mpirun: argument 2 \(a zero_plan\) is a value save cannot write \(.*\); pass the data it holds\.$>
%! muon_mpirun (2, "disp", 1, zero_plan ())
%!error <muon_mpirun: NP must be an integer from 1 to 1024.> muon_mpirun (0, "disp")
%!error <muon_mpirun: NP must be an integer from 1 to 1024.> muon_mpirun (struct ("timeout", 5), "disp")
%!error <muon_mpirun: NP must be an integer from 1 to 1024.> muon_mpirun (1025, "disp")
%!error <muon_mpirun: NP must be an integer from 1 to 1024.> muon_mpirun (1e9, "disp")
%!error <muon_mpirun: NP must be an integer from 1 to 1024.> muon_mpirun (2.5, "disp")
%!error <muon_mpirun: NP must be an integer from 1 to 1024.> muon_mpirun (Inf, "disp")
%!error <muon_mpirun: TIMEOUT must be a positive number of seconds.> muon_mpirun (struct ("np", 2, "timeout", -1), "disp")
%!error <muon_mpirun: TIMEOUT must be a positive number of seconds.> muon_mpirun (struct ("np", 2, "timeout", Inf), "disp")
%!error <muon_mpirun: MPIRUN_ARGS must be a string or a cell array of strings.> muon_mpirun (struct ("np", 2, "mpirun_args", 1), "disp")
%!error <muon_mpirun: MPIRUN_ARGS must be a string or a cell array of strings.> muon_mpirun (struct ("np", 2, "mpirun_args", {{"-x", 1}}), "disp")
%!error <muon_mpirun: MPIRUN_ARGS must be a string or a cell array of strings.> muon_mpirun (struct ("np", 2, "mpirun_args", ["-x"; "-y"]), "disp")
%!error <muon_mpirun: NP must be an integer from 1 to 1024\.> muon_mpirun (1025, "disp")
%!error id=muonlab:badArg muon_mpirun (1025, "disp")
%!error <muon_mpirun: NP must be at most \d+ \(4 x the \d+ cores here\) unless OVERSUBSCRIBE is true.> muon_mpirun (4 * nproc ("all") + 1, "disp")
%!error <muon_mpirun: OVERSUBSCRIBE must be true or false\.> muon_mpirun (struct ("np", 2, "oversubscribe", "yes"), "disp")
%!error <^muon_mpirun: unknown option 'hosts'\. Options: .*\.$> muon_mpirun (struct ("np", 2, "hosts", 1), "disp")
%!error <muon_mpirun: FN must be a function name or handle.> muon_mpirun (2, 3)
