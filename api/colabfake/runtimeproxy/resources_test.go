package runtimeproxy

import "testing"

// /proc/meminfo's kB figures become bytes; MemAvailable is preferred,
// MemFree stands in on kernels without it; no MemTotal, no memory.
func TestParseMeminfo(t *testing.T) {
	m := parseMeminfo([]byte("MemTotal:       16318504 kB\nMemFree:         1000000 kB\nMemAvailable:    9000000 kB\n"))
	if m == nil || m.TotalBytes != 16318504*1024 || m.FreeBytes != 9000000*1024 {
		t.Errorf("with MemAvailable: %+v", m)
	}
	m = parseMeminfo([]byte("MemTotal: 2048 kB\nMemFree: 1024 kB\n"))
	if m == nil || m.FreeBytes != 1024*1024 {
		t.Errorf("without MemAvailable: %+v", m)
	}
	if m := parseMeminfo([]byte("garbage\n")); m != nil {
		t.Errorf("without MemTotal: %+v", m)
	}
}

// nvidia-smi's CSV (MiB and percent) becomes bytes and fractions 0–1.
func TestParseNvidiaSMI(t *testing.T) {
	g := parseNvidiaSMI([]byte("Tesla T4, 2765, 15360, 15, 21\nNVIDIA L4, 0, 23034, 0, 0\nbad line\n"))
	if len(g) != 2 {
		t.Fatalf("%+v", g)
	}
	if g[0].Name != "Tesla T4" || g[0].MemoryUsedBytes != 2765<<20 || g[0].MemoryTotalBytes != 15360<<20 ||
		g[0].GPUUtilization != 0.15 || g[0].MemoryUtilization != 0.21 || !g[0].EverUsed {
		t.Errorf("T4 %+v", g[0])
	}
	if g[1].EverUsed {
		t.Errorf("an unused GPU is ever used: %+v", g[1])
	}
}
