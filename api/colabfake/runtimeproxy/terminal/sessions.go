package terminal

import (
	"sort"
	"strconv"
	"time"
)

// Session is one open terminal as Jupyter's api/terminals lists it: its
// name ("1", "2"… per runtime, as Jupyter numbers them) and its last
// activity (the emulator's clock when input or output last passed).
type Session struct {
	Name         string
	LastActivity time.Time
}

// session is an open socket's entry in Server.sessions.
type session struct {
	name string
	last time.Time
}

// open registers a new terminal of runtime id, active now.
func (s *Server) open(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions == nil {
		s.sessions, s.nextName = map[string][]*session{}, map[string]int{}
	}
	s.nextName[id]++
	t := &session{name: strconv.Itoa(s.nextName[id]), last: s.clock()}
	s.sessions[id] = append(s.sessions[id], t)
	return t
}

// touch moves t's last activity to now (input or output passed).
func (s *Server) touch(t *session) {
	now := s.clock()
	s.mu.Lock()
	if now.After(t.last) {
		t.last = now
	}
	s.mu.Unlock()
}

// closeSession drops t of runtime id.
func (s *Server) closeSession(id string, t *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.sessions[id]
	for i, x := range list {
		if x == t {
			s.sessions[id] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(s.sessions[id]) == 0 {
		delete(s.sessions, id)
	}
}

// Sessions returns runtime id's open terminals, by name.
func (s *Server) Sessions(id string) []Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Session, 0, len(s.sessions[id]))
	for _, t := range s.sessions[id] {
		out = append(out, Session{Name: t.name, LastActivity: t.last})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
