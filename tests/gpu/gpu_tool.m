## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{path} =} gpu_tool (@var{name})
## The first CUDA tool @var{name} found (e.g. @qcode{"compute-sanitizer"}, @qcode{"nsys"}):
## the PATH, then the bin folders of the CUDA toolkits (@env{CUDA_HOME}, /usr/local/cuda,
## /usr/local/cuda-*, and their compute-sanitizer and nsight-systems-* folders) and of
## Nsight Systems installed on its own (/opt/nvidia/nsight-systems/*).  Empty when there is
## none: a missing tool is a skip, never an error.
## @end deftypefn

function s = gpu_tool (name)
  [rc, out] = system (sprintf ("command -v '%s' 2>/dev/null", name));
  s = strtrim (out);
  if (rc == 0 && ! isempty (s))
    return;
  endif
  s = "";
  homes = [{getenv("CUDA_HOME"), "/usr/local/cuda"}, glob("/usr/local/cuda-*")(:)'];
  homes = homes(! cellfun (@isempty, homes));
  dirs = {};
  for h = homes
    dirs = [dirs, {fullfile(h{1}, "bin"), fullfile(h{1}, "compute-sanitizer")}, ...
            glob(fullfile (h{1}, "nsight-systems-*", "bin"))(:)'];
  endfor
  dirs = [dirs, glob("/opt/nvidia/nsight-systems/*/bin")(:)'];
  for d = dirs
    f = fullfile (d{1}, name);
    if (exist (f, "file"))
      s = f;
      return;
    endif
  endfor
endfunction

%!test
%! assert (gpu_tool ("sh"), strtrim (nthargout (2, @system, "command -v sh")));
%! assert (gpu_tool ("no-such-tool-muonlab"), "");
