## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} gpu_stale (@var{err}, @var{fname}, @var{what})
## Rethrow the error @var{err} of a device-array call; a @code{muonlab:staleHandle} error
## (a device array of an earlier session, or deleted) names the function the user called,
## @var{fname}, and the array as the user knows it, @var{what}, in place of the
## gateway's own words (@qcode{"gather: D is a device array of an earlier session
## @dots{}"} becomes e.g. @qcode{"polar_metrics: A is a device array of an earlier session
## @dots{}"}).
## @end deftypefn

function gpu_stale (err, fname, what)
  k = strfind (err.message, " is a device array ");   # of an earlier session, or deleted
  if (strcmp (err.identifier, "muonlab:staleHandle") && ! isempty (k))
    err.message = [fname, ": ", what, err.message(k(1):end)];
  endif
  rethrow (err);
endfunction
