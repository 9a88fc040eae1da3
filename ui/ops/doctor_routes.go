package ops

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// routeTimeout bounds each route's request.
const routeTimeout = 20 * time.Second

// doctorRoute is one route of a runtime's proxy the doctor tries.
// Required routes are what colabdash cannot do without (files, kernels);
// the others are Colab's own routes and Jupyter's terminals, which a
// stock Jupyter server may lack: their absence is CheckNotOffered.
type doctorRoute struct {
	path      string // below connectionInfo.url
	websocket bool   // dialled as a WebSocket (then closed at once)
	required  bool
	use       string // what colabdash uses it for
	absent    string // why a server may lack it
}

// colabOnly is why a server lacks one of Colab's own routes.
const colabOnly = "a stock Jupyter server has none of Colab's own routes"

var doctorRoutes = []doctorRoute{
	{path: "api/contents", required: true, use: "files: ls, cp, rm, the files pane"},
	{path: "api/kernels", required: true, use: "kernels: exec's interrupt, the monitor's activity"},
	{path: "api/terminals", use: "colabdash shell where /colab/tty is missing", absent: "Jupyter's terminals are off or not installed there"},
	{path: "api/colab/resources", use: "the monitor's RAM, disk and GPU", absent: colabOnly},
	{path: "colab/tty", websocket: true, use: "colabdash shell", absent: colabOnly},
}

// routeChecks checks the routes of the first listed runtime (opened with
// a fresh proxy token from get_runtime) and returns its name; with no
// runtime, one skipped check.
func routeChecks(ctx context.Context, in DoctorInput, rts []api.Runtime) ([]Check, string) {
	if len(rts) == 0 {
		return []Check{skipped("runtime", "no runtime to check (create one with `colabdash create`, then run doctor again)")}, ""
	}
	name := rts[0].Name
	jc, _, err := OpenJupyter(ctx, in.Svc, name, in.Jupyter)
	if err != nil {
		return []Check{failed("runtime", err, in.Creds, "")}, name
	}
	out := []Check{{Name: "runtime", Status: CheckOK, Detail: RuntimeID(name) + ": get_runtime gave a proxy URL and token"}}
	for _, r := range doctorRoutes {
		out = append(out, routeCheck(ctx, jc.Client, r))
	}
	return out, name
}

// routeCheck tries one route: a GET (or a WebSocket dial) through the
// proxy, renewing the token once on the proxy's own 404. A 404 from the
// runtime's server means the route is not there.
func routeCheck(ctx context.Context, pc *proxy.Client, r doctorRoute) Check {
	c := Check{Name: "route /" + r.path}
	ctx, cancel := context.WithTimeout(ctx, routeTimeout)
	defer cancel()
	var err error
	if r.websocket {
		conn, derr := pc.DialWebSocket(ctx, r.path)
		if derr == nil {
			_ = conn.CloseNow()
		}
		err = derr
	} else {
		var resp *http.Response
		if resp, err = pc.Do(ctx, &proxy.Request{Op: "doctor", Method: http.MethodGet, Path: r.path, Retry404: true}); err == nil {
			resp.Body.Close()
		}
	}
	var pe *proxy.Error
	switch {
	case err == nil:
		c.Status, c.Detail = CheckOK, "answers ("+r.use+")"
	case errors.As(err, &pe) && pe.Status == http.StatusNotFound && !r.required:
		c.Status, c.Detail = CheckNotOffered, "not offered by this runtime's server ("+r.absent+"); what goes without it: "+r.use
	case errors.As(err, &pe) && pe.Status == http.StatusNotFound:
		c.Status, c.Detail = CheckFail, "not found on this runtime's server: "+r.use+" cannot work"
		c.Fix = reportFix
	default:
		c.Status, c.Detail = CheckFail, api.OneLine(err.Error(), 300)
		c.Fix = "retry; if it persists, run `colabdash doctor --report FILE` and attach FILE to a bug report"
	}
	return c
}
