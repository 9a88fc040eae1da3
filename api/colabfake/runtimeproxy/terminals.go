package runtimeproxy

import (
	"encoding/json"
	"net/http"
)

// jTerminal is Jupyter's terminal model in api/terminals.
type jTerminal struct {
	Name         string `json:"name"`
	LastActivity string `json:"last_activity"`
}

// serveTerminals is GET api/terminals of runtime id, as Jupyter answers
// it: the runtime's open terminals (the colab/tty sockets the emulator
// serves), each with its name and last activity, which typing and output
// both move (the emulator's clock). The monitor reads it as a signal of
// work the kernels do not show.
func (s *Server) serveTerminals(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodGet {
		jsonError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	out := []jTerminal{}
	for _, t := range s.tty.Sessions(id) {
		out = append(out, jTerminal{Name: t.Name, LastActivity: jupyterTime(t.LastActivity)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
