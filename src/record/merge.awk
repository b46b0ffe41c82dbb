# SPDX-License-Identifier: GPL-2.0-only
# merge.awk - turns the recorder's raw logs into trace events.
#
# Pass 1 (default): reads the host sampler's log, then the preload log, and
# prints "TIME_US ORDER KIND FIELDS" lines, times relative to UML's start.
# Pass 2 (-v pass=2), on the time-sorted pass-1 output: decides touches and
# prints the event lines of traces/FORMAT.md:
#   - a page the host saw become resident is a touch unless a ubd read
#     into it came first (the read is what made it resident);
#   - a guest free is kept for pages the host has; a page the guest uses
#     again after a free is a touch, unless a read refilled it first.
# Variables: mem_pages, filetab ("INDEX DEVICE KIND DATA_OFFSET RESIDENT"
# lines; KIND image, layer or backing); until, a phase name: pass 1 drops
# everything logged after the guest printed that phase (host.log, read
# first, gives its time), the footprint among it, or with frozen (the
# time of the recorder's Z line after it) everything after that;
# fallocate, a file: pass 1 writes there what it left out of the
# preload log's fallocate calls (the trace has no event for them), one
# line "CALLS PAGES MODE COUNT [MODE COUNT...]" (PAGES: the whole 4 KiB
# pages of the image files the calls covered; MODE: the FALLOC_FL_* flags
# by name, joined by |), nothing when there were none; leftout, a file:
# pass 1 writes there "READS WRITES BYTES" of the transfers whose buffer
# lay outside physical memory (their pages are not known), nothing when
# there were none; hole_pages, for a QEMU guest whose RAM is split by the
# 4 GiB line: the guest pages of the hole below it, which the guest's
# page numbers at and above 4 GiB (page 1048576) skip.
# The preload log's Q lines (qemu_preload.c) are reads of several buffers,
# one request to the host: pass 1 keeps the R lines of each (its time,
# file and range) and prints a request line before those it kept, all at
# once and after the other reads of their microsecond (order 1.5), so
# that no other read comes between them or right after them, where it
# would be taken for a part; no request line when it kept none, or
# rounded one to sectors (its parts might overlap).
# The preload log's D lines (qemu_preload.c) are pages the VMM gave back
# to the host: a discard of the pages the host has, after which a page
# seen resident again is a touch. MADV_DONTNEED of a shared mapping (HOW
# N) frees nothing of the file: not a discard.

function us(t) { t = int((t - start) / 1000); return t < 0 ? 0 : t }

BEGIN {
	if (frozen != "")
		cut = frozen + 0
	nf = split(filetab, rows, "\n")
	for (i = 1; i <= nf; i++) {
		if (split(rows[i], f, " ") < 5)
			continue
		fdev[f[1]] = f[2]; fkind[f[1]] = f[3]; foff[f[1]] = f[4]; fres[f[1]] = f[5]
	}
	mem_bytes = mem_pages * 4096
}

# ---------------------------------------------------------------- pass 1
pass != 2 && cut != "" && $1 > cut { next }	# after the --until phase

pass != 2 && FILENAME ~ /host\.log$/ {
	if ($2 == "S") start = $1
	else if ($2 == "I") inode = $3
	else if ($2 == "N") {
		if ($3 < mem_pages) {
			c = $3 + $4 > mem_pages ? mem_pages - $3 : $4
			print us($1), 2, "resident", $3, c
		}
	} else if ($2 == "C") {
		p = $5
		# a QEMU guest's RAM above 4 GiB continues the file after the hole
		if (hole_pages && p >= 1048576)
			p -= hole_pages
		else if (hole_pages && p >= 1048576 - hole_pages)
			p = mem_pages	# in the hole: no RAM
		if ($3 == "@anonsim" && ($4 == "F" || $4 == "A") && p < mem_pages) {
			c = p + $6 > mem_pages ? mem_pages - p : $6
			print us($1), 3, ($4 == "F" ? "gfree" : "greuse"), p, c
		} else if ($3 == "anonsim-phase" && $4 ~ /^[A-Za-z0-9_.-]+$/) {
			print us($1), 4, "phase", $4
			if (until != "" && $4 == until && cut == "")
				cut = $1
		}
	} else if ($2 == "H")
		print us($1), 5, "host", $3, ($4 == "" ? 0 : $4)
	else if ($2 == "F") {
		end = $1
		print us($1), 9, "footprint", "tmpfs", $3
		for (i in fdev)
			if (fkind[i] != "layer")
				print us($1), 9, "footprint", "cache:" fdev[i], fres[i]
	}
	next
}

pass != 2 && $2 == "M" {
	# UML's kernel process maps the file first; mappings made in its
	# user-process host processes are left out
	if ($7 != inode)
		next
	if (kpid == "")
		kpid = $3
	if ($3 != kpid || $6 >= mem_bytes)
		next
	len = $6 + $5 > mem_bytes ? mem_bytes - $6 : $5
	nmap++; maddr[nmap] = $4; mlen[nmap] = len
	print us($1), 0, "mmap", $4, len, $6
	next
}

pass != 2 && $2 == "U" {
	if ($3 != kpid)
		next
	for (i = 1; i <= nmap; i++)
		if ($4 < maddr[i] + mlen[i] && maddr[i] < $4 + $5) {
			print us($1), 0, "munmap", $4, $5
			break
		}
	next
}

# The event line of an R or W line, ordered @order, "" when it is left
# out; rounded set when it was rounded out to sectors.
function io_line(order,    fi, off, len, page, end_) {
	fi = $5; off = $6; len = $7; page = $8
	if (!(fi in fdev)) return ""
	if (fkind[fi] == "layer") {
		if (off < foff[fi]) { meta++; return "" }	# COW header and bitmap
		off -= foff[fi]
	}
	if (page < 0 || page >= mem_pages) {
		outside++
		if ($2 == "R") out_r++; else out_w++
		out_bytes += len
		return ""
	}
	# UML's own probe of an image's header at open (4136 bytes at 0):
	# rounded out to whole sectors, since it does pass through the host
	# page cache
	if (off % 512 || len % 512) {
		probe++
		rounded = 1
		end_ = off + len
		off -= off % 512
		len = int((end_ + 511) / 512) * 512 - off
	}
	return us($1) " " order " " ($2 == "R" ? "read" : "write") " " fdev[fi] " " off " " len " " page "\n"
}

# The open request whose range holds this R line, or 0.
function request_of(    q) {
	for (q in qleft)
		if (qt[q] == $1 && qfile[q] == $5 && $6 >= qoff[q] && $6 < qoff[q] + qlen[q])
			return q
	return 0
}

# Print request @q's kept parts, after a request line when they allow one.
function flush_request(q,    off, len) {
	if (qparts[q] != "" && !qrounded[q] && !(fkind[qfile[q]] == "layer" && qoff[q] < foff[qfile[q]])) {
		off = qoff[q] - (fkind[qfile[q]] == "layer" ? foff[qfile[q]] : 0)
		len = qlen[q]
		if (off % 512 || len % 512)
			qparts[q] = ""	# none of QEMU's: its parts were rounded
		else
			printf "%s 1.5 request %s %s %s\n", us(qt[q]), fdev[qfile[q]], off, len
	}
	printf "%s", qparts[q]
	delete qleft[q]; delete qparts[q]; delete qrounded[q]
}

pass != 2 && $2 == "Q" {
	nq++
	qt[nq] = $1; qfile[nq] = $5; qoff[nq] = $6; qlen[nq] = $7
	qleft[nq] = $8; qparts[nq] = ""; qrounded[nq] = 0
	next
}

pass != 2 && ($2 == "R" || $2 == "W") {
	q = $2 == "R" ? request_of() : 0
	rounded = 0
	line = io_line(q ? 1.5 : 1)
	if (!q) {
		printf "%s", line
		next
	}
	qparts[q] = qparts[q] line
	qrounded[q] += rounded
	if (--qleft[q] <= 0)
		flush_request(q)
	next
}

# fallocate on an image (ubd: the guest's discard, punch-hole, and
# write-zeroes, zero-range): no event, only counted
function mode_name(m,    n, i, b, s) {	# keep-size last, as ubd writes it
	split("keep-size punch-hole no-hide-stale collapse-range zero-range insert-range unshare-range", n, " ")
	s = ""
	for (i = 2; i <= 7; i++) {
		b = 2 ^ (i - 1)
		if (int(m / b) % 2) { s = s (s == "" ? "" : "|") n[i]; m -= b }
	}
	if (m >= 128)
		s = s (s == "" ? "" : "|") sprintf("0x%x", m - m % 2)
	if (m % 2)
		s = s (s == "" ? "" : "|") n[1]
	return s == "" ? "allocate" : s
}

pass != 2 && $2 == "A" {
	if (!($5 in fdev)) next
	nfalloc++
	first = int(($6 + 4095) / 4096); last = int(($6 + $7) / 4096)
	if (last > first) falloc_pages += last - first
	m = mode_name($8 + 0)
	if (!(m in falloc_mode)) falloc_modes[++nfmodes] = m
	falloc_mode[m]++
	next
}

pass != 2 && $2 == "D" {
	if ($6 == "N" || $4 >= mem_pages)
		next
	c = $4 + $5 > mem_pages ? mem_pages - $4 : $5
	print us($1), 1, "discard", $4, c
	next
}

pass != 2 { next }

END {
	for (q in qleft)	# requests whose lines did not all come
		flush_request(q)
	if (pass != 2 && (meta || outside || probe))
		printf "anonsim-record: left out %d copy-on-write metadata transfers, %d transfers outside physical memory; %d header probes rounded to sectors\n", meta + 0, outside + 0, probe + 0 > "/dev/stderr"
	if (pass != 2 && outside && leftout != "") {
		printf "%d %d %d\n", out_r, out_w, out_bytes > leftout
		close(leftout)
	}
	if (pass != 2 && nfalloc && fallocate != "") {
		printf "%d %d", nfalloc, falloc_pages > fallocate
		for (i = 1; i <= nfmodes; i++)
			printf " %s %d", falloc_modes[i], falloc_mode[falloc_modes[i]] > fallocate
		printf "\n" > fallocate
		close(fallocate)
	}
}

# ---------------------------------------------------------------- pass 2
function flush_run(kind) {
	if (rn) print t, kind, rs, rn
	rn = 0
}
function add_run(kind, p) {
	if (rn && p == rs + rn) { rn++; return }
	flush_run(kind)
	rs = p; rn = 1
}

pass == 2 {
	t = $1; k = $3
	if (k == "read" || k == "write") {
		print t, k, $4, $5, $6, $7
		if (k == "read") {
			n = int(($6 + 4095) / 4096)
			for (p = $7; p < $7 + n && p < mem_pages; p++) { res[p] = 1; freed[p] = 0 }
		}
	} else if (k == "resident") {
		rn = 0
		for (p = $4; p < $4 + $5; p++)
			if (!res[p]) { res[p] = 1; add_run("touch", p) }
		flush_run("touch")
	} else if (k == "gfree") {
		rn = 0
		for (p = $4; p < $4 + $5; p++)
			if (res[p] && !freed[p]) { freed[p] = 1; add_run("free", p) }
		flush_run("free")
	} else if (k == "greuse") {
		rn = 0
		for (p = $4; p < $4 + $5; p++)
			if (freed[p]) { freed[p] = 0; add_run("touch", p) }
		flush_run("touch")
	} else if (k == "discard") {
		rn = 0
		for (p = $4; p < $4 + $5; p++)
			if (res[p]) { res[p] = 0; freed[p] = 0; add_run("discard", p) }
		flush_run("discard")
	} else if (k == "request") {
		print t, "request", $4, $5, $6
	} else if (k == "mmap") {
		print t, "mmap", $4, $5, $6
	} else if (k == "munmap") {
		print t, "munmap", $4, $5
	} else if (k == "phase") {
		print t, "phase", $4
	} else if (k == "host") {
		if ($5 > 0)
			print t, "host", $4, $5
		else
			print t, "host", $4
	} else if (k == "footprint") {
		print t, "footprint", $4, $5
	}
}
