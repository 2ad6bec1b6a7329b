## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{payload} =} state_read (@var{fname}, @var{file}, @var{kind})
## Read a muonlab checkpoint written by @code{state_write} and return its payload, after
## checking, in this order: the magic, the format version (2), the length (the file is
## exactly 96 + N bytes), the SHA-256 checksum, the reserved field, the kind (must be
## @var{kind}) and that the payload decodes to the one variable @code{payload}.  Each
## failure is a @code{muonlab:badState} error naming @var{fname} and @var{file}; a missing
## or unreadable file is @code{muonlab:badArg}, and so is anything but a regular file (a
## FIFO, @file{/dev/zero}) or a file over the limit @code{max_checkpoint_mib} (64 GiB),
## refused before it is opened.  Octave's @code{load} reads files only, so the checked
## payload is copied to a private folder (@code{private_dir}) of the first of the
## temporary folder (@env{TMPDIR}, else @code{P_tmpdir}), the file's folder and
## @file{/tmp} that takes it whole; when none does (missing, read-only or full), that is
## a @code{muonlab:badArg} error @qcode{"cannot read '@var{file}': no folder takes the
## temporary copy of its payload ..."} naming each folder tried.  Only the 64-byte header
## is read until it gives the file's length.  The payload's contents are not checked
## here: that is the caller's domain check.  The SHA-256 detects corruption, not tampering
## (it is unkeyed: anyone can reseal a changed file), so the payload is walked completely by
## @code{mat_check} before Octave's @code{load} sees it, and a crafted one is a clean
## @code{muonlab:badState} error, never a crash or a hang.  A version-1 file (Octave's binary format,
## no checksum, muonlab before the checksummed format) is refused with a message saying
## how to convert one that is trusted.
## @seealso{state_write}
## @end deftypefn

function payload = state_read (fname, file, kind)
  nb = regular_file (fname, file, "max_checkpoint_mib");
  [fid, msg] = fopen (file, "r");
  if (fid < 0)
    error ("muonlab:badArg", "%s: cannot read '%s': %s.", fname, file, msg);
  endif
  unwind_protect
    ## the header first: the rest is read only when the length is the file's
    bytes = fread (fid, 64, "uint8=>uint8").';
    if (numel (bytes) == 64 && isequal (bytes(1:8), uint8 ("MUONCKPT"))
        && from_le (bytes(17:24), "uint64") == nb - 96)
      bytes = [bytes, fread(fid, Inf, "uint8=>uint8").'];
    endif
  unwind_protect_cleanup
    fclose (fid);
  end_unwind_protect
  if (numel (bytes) != 64)
    nb = numel (bytes);               # what was read (the file may have changed since)
  endif
  if (nb < 8 || ! isequal (bytes(1:8), uint8 ("MUONCKPT")))
    ## version 1: Octave's binary format, first variable "muonlab_state"
    if (nb >= 28 && isequal (bytes(1:9), uint8 ("Octave-1-"))
        && isequal (bytes(16:28), uint8 ("muonlab_state")))
      error ("muonlab:badState",
             ["%s: '%s' is a version 1 muonlab state (Octave binary, no checksum); this " ...
              "muonlab reads format version 2 only (to convert a file you trust: " ...
              "S = load (FILE); muon_save_state (NEWFILE, S.muonlab_state.opt))."],
             fname, file);
    endif
    error ("muonlab:badState", "%s: '%s' is not a muonlab checkpoint (no MUONCKPT magic).",
           fname, file);
  endif
  if (nb < 16)
    error ("muonlab:badState", "%s: '%s' is truncated (%d bytes).", fname, file, nb);
  endif
  version = from_le (bytes(9:12), "uint32");
  if (version != 2)
    error ("muonlab:badState", "%s: '%s' has format version %d; this muonlab reads version 2.",
           fname, file, version);
  endif
  if (nb < 96)
    error ("muonlab:badState", "%s: '%s' is truncated (%d bytes).", fname, file, nb);
  endif
  n = from_le (bytes(17:24), "uint64");
  if (n != nb - 96)
    ## the size the header implies, every digit exact (96 + double (n) rounded: a length
    ## field of 2^64 - 1 read as 18446744073709551616, a size no header can state)
    if (n <= intmax ("uint64") - 96)
      said = int_text (n + 96){1};
    else
      said = "at least 2^64";
    endif
    error ("muonlab:badState",
           "%s: '%s' is truncated or corrupt (%d bytes; its header says %s).", fname,
           file, nb, said);
  endif
  digest = hash ("sha256", char (bytes(1:end-32)));
  if (! isequal (uint8 (hex2dec (reshape (digest, 2, []).')).', bytes(end-31:end)))
    error ("muonlab:badState", "%s: '%s' is corrupt (checksum mismatch).", fname, file);
  endif
  if (any (bytes(13:16)))
    error ("muonlab:badState", "%s: '%s' has reserved header bytes set.", fname, file);
  endif
  k = bytes(25:64);
  z = find (k == 0, 1);
  if (! isempty (z))
    if (any (k(z:end)))
      error ("muonlab:badState", "%s: '%s' has a malformed kind field.", fname, file);
    endif
    k = k(1:z-1);
  endif
  k = char (k);
  if (! strcmp (k, kind))
    error ("muonlab:badState", "%s: '%s' holds a '%s' checkpoint, not a '%s' one.", fname,
           file, k, kind);
  endif

  ## the MAT stream walked completely first: load can crash Octave on a crafted one
  msg = mat_check (bytes(65:end-32));
  if (! isempty (msg))
    error ("muonlab:badState", "%s: '%s' has a payload that does not decode (%s).", fname,
           file, msg);
  endif
  [d, tmp] = payload_copy (fname, file, bytes(65:end-32));
  unwind_protect
    try
      S = load ("-mat", tmp);
    catch err
      error ("muonlab:badState", "%s: '%s' has a payload that does not decode (%s).", fname,
             file, err.message);
    end_try_catch
  unwind_protect_cleanup
    private_dir_remove (d, tmp);
  end_unwind_protect
  if (! (isstruct (S) && isequal (fieldnames (S), {"payload"})))
    error ("muonlab:badState", "%s: '%s' has a payload without the variable 'payload'.",
           fname, file);
  endif
  payload = S.payload;
endfunction

## a copy of the payload for Octave's load (which reads files only), in a private folder
## (private_dir) of the first of: the temporary folder (TMPDIR, else P_tmpdir), the
## file's folder, /tmp, that takes it whole (its size on disk checked: a full disk)
function [d, tmp] = payload_copy (fname, file, body)
  root = getenv ("TMPDIR");             # (not tempdir (): it warns of a missing TMPDIR)
  if (isempty (root))
    root = P_tmpdir ();
  endif
  here = fileparts (file);
  if (isempty (here))
    here = ".";
  endif
  roots = unique ({root, here, "/tmp"}, "stable");
  why = {};
  for k = 1:numel (roots)
    if (! isfolder (roots{k}))
      why{end+1} = sprintf ("'%s': no such folder", roots{k});
      continue;
    endif
    try
      d = private_dir (fname, roots{k});
    catch err
      why{end+1} = regexprep (err.message, '^[^:]*: cannot write into |\.$', "");
      continue;
    end_try_catch
    tmp = fullfile (d, "payload.mat");
    [fid, msg] = fopen (tmp, "w");
    if (fid >= 0)
      m = fwrite (fid, body, "uint8");
      ok = fclose (fid) == 0 && m == numel (body);
      [st, e] = stat (tmp);             # (fwrite and fclose say all on a full disk)
      if (ok && e == 0 && st.size == numel (body))
        return;
      endif
      msg = "the disk is full";
    endif
    why{end+1} = sprintf ("'%s': %s", roots{k}, msg);
    private_dir_remove (d, tmp);
  endfor
  error ("muonlab:badArg", ["%s: cannot read '%s': no folder takes the temporary copy of " ...
                            "its payload that Octave's load reads (%s)."],
         fname, file, strjoin (why, "; "));
endfunction
