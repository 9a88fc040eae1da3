package monitor

import (
	"encoding/json"
	"testing"
)

// A GPU figure the reply leaves out, or sends as null, is unknown, never
// 0 or false; the JSON written back leaves it out again, while a figure
// sent as 0 stays a known 0.
func TestGPUFiguresLeftOutAreUnknown(t *testing.T) {
	body := `{"disks":[],"gpus":[{"name":"Tesla T4"},` +
		`{"name":"A100","memoryTotalBytes":100,"memoryUsedBytes":0,"gpuUtilization":null,"memoryUtilization":0,"everUsed":false}]}`
	res, err := New(Options{}).Resources(ctx(t), serve(t, 200, body))
	if err != nil || len(res.GPUs) != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	bare, a100 := res.GPUs[0], res.GPUs[1]
	for _, f := range []GPUField{GPUMemoryUsed, GPUMemoryTotal, GPUUtil, GPUMemoryUtil, GPUEverUsed} {
		if bare.Knows(f) {
			t.Errorf("a GPU with its name alone knows figure %b", f)
		}
	}
	if a100.Knows(GPUUtil) || !a100.Knows(GPUMemoryUsed|GPUMemoryTotal|GPUMemoryUtil|GPUEverUsed) {
		t.Errorf("null utilization unknown, zeros known: %+v", a100)
	}
	for _, c := range []struct {
		g    GPU
		want string
	}{
		{bare, `{"name":"Tesla T4"}`},
		{a100, `{"name":"A100","memoryUsedBytes":0,"memoryTotalBytes":100,"memoryUtilization":0,"everUsed":false}`},
	} {
		if b, err := json.Marshal(c.g); err != nil || string(b) != c.want {
			t.Errorf("JSON of %+v = %s (%v), want %s", c.g, b, err, c.want)
		}
	}
}
