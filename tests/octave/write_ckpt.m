## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} write_ckpt (@var{file}, @var{kind}, @var{payload})
## @deftypefnx {} {} write_ckpt (@var{file}, @var{kind}, @var{payload}, @var{varname})
## Writes @var{payload} (a struct, or a @code{muon_state}: its plain struct) as a checkpoint
## of @var{kind} (@qcode{"muon_optimizer"}, @qcode{"zero_shard"}) in the container that
## @code{muon_save_state}'s help documents, written independently of inst/: the magic, the
## version 2, the body's length, the kind, a -v6 MAT body holding the variable
## @var{varname} (default @qcode{"payload"}), its SHA-256.  The checkpoint suites reseal
## files whose contents they changed, so that only the domain checks can catch them.
## @end deftypefn

function write_ckpt (file, kind, payload, varname)
  if (nargin < 4)
    varname = "payload";
  endif
  g = [tempname() ".mat"];
  if (isa (payload, "muon_state"))
    payload = struct (payload);      # a file holds the plain struct
  endif
  S = struct (varname, {payload});
  save ("-v6", g, "-struct", "S");
  body = file_bytes (g);
  unlink (g);
  b = [uint8("MUONCKPT"), typecast(uint32 (2), "uint8"), zeros(1, 4, "uint8"), ...
       typecast(uint64 (numel (body)), "uint8"), uint8(kind), ...
       zeros(1, 40 - numel (kind), "uint8"), body];
  h = hash ("sha256", char (b));
  put_bytes (file, [b, uint8(hex2dec (reshape (h, 2, []).')).']);
endfunction
