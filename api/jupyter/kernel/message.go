package kernel

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"
)

// ProtocolVersion is the Jupyter messaging protocol version this
// package speaks and puts in every header it sends.
const ProtocolVersion = "5.3"

// Channel names a message's channel on the socket.
const (
	// ChannelShell carries requests and their replies (execute_request,
	// execute_reply); a reply goes only to the socket that asked.
	ChannelShell = "shell"
	// ChannelIOPub carries what the kernel publishes to every socket:
	// status, execute_input, stream, execute_result, display_data, error.
	ChannelIOPub = "iopub"
)

// Message is one message received on the socket, as the server sent it
// (every field is untrusted text).
type Message struct {
	// Channel is "iopub", "shell", "stdin" or "control".
	Channel string
	// Type is header.msg_type: "stream", "status", "execute_input",
	// "execute_result", "display_data", "error", "execute_reply"…
	Type string
	// ID is header.msg_id.
	ID string
	// Session is header.session, the id of the client (or kernel)
	// session that sent it.
	Session string
	// Date is header.date as the kernel wrote it (ISO 8601, often with
	// microseconds), "" when absent.
	Date string
	// ParentID and ParentType are parent_header's msg_id and msg_type:
	// the request this message answers or belongs to ("" for none, as
	// the server's own "restarting" status).
	ParentID   string
	ParentType string
	// Content is the message's content object, undecoded (at most
	// Options.MaxMessage bytes with the rest of the message).
	Content json.RawMessage
}

// Stream is a stream message's content: Name is "stdout" or "stderr",
// Text what the code wrote (progress bars' \r included).
type Stream struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// ExecError is an exception the code raised: Python's class name
// ("ValueError"), its message, and the formatted traceback, one frame per
// entry, with IPython's ANSI colour codes.
type ExecError struct {
	Name      string   `json:"ename"`
	Value     string   `json:"evalue"`
	Traceback []string `json:"traceback"`
}

// ExecuteInput is an execute_input message's content: the code a cell
// started to run (whoever sent it) and its execution count (In[N]).
type ExecuteInput struct {
	Code           string `json:"code"`
	ExecutionCount int    `json:"execution_count"`
}

// Stream decodes a "stream" message; ok is false for any other message
// or a content that is not a stream's.
func (m Message) Stream() (s Stream, ok bool) {
	if m.Type != "stream" || json.Unmarshal(m.Content, &s) != nil {
		return Stream{}, false
	}
	return s, true
}

// State is a "status" message's execution_state ("busy", "idle",
// "starting", and from jupyter_server "restarting" or "dead"); ok is
// false for any other message.
func (m Message) State() (state string, ok bool) {
	var c struct {
		State string `json:"execution_state"`
	}
	if m.Type != "status" || json.Unmarshal(m.Content, &c) != nil || c.State == "" {
		return "", false
	}
	return c.State, true
}

// Exception decodes an "error" message (or an execute_reply whose
// status is "error"); ok is false for anything else.
func (m Message) Exception() (e ExecError, ok bool) {
	var c struct {
		Status string `json:"status"`
		ExecError
	}
	if (m.Type != "error" && m.Type != "execute_reply") || json.Unmarshal(m.Content, &c) != nil {
		return ExecError{}, false
	}
	if m.Type == "execute_reply" && c.Status != "error" {
		return ExecError{}, false
	}
	return c.ExecError, true
}

// Input decodes an "execute_input" message; ok is false for any other.
func (m Message) Input() (in ExecuteInput, ok bool) {
	if m.Type != "execute_input" || json.Unmarshal(m.Content, &in) != nil {
		return ExecuteInput{}, false
	}
	return in, true
}

// Text is the text/plain rendering of an "execute_result",
// "display_data" or "update_display_data" message (a figure's is
// "<Figure size 640x480 with 1 Axes>"); ok is false for any other
// message or one without text/plain.
func (m Message) Text() (text string, ok bool) {
	switch m.Type {
	case "execute_result", "display_data", "update_display_data":
	default:
		return "", false
	}
	var c struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(m.Content, &c) != nil {
		return "", false
	}
	raw, ok := c.Data["text/plain"]
	if !ok {
		return "", false
	}
	if json.Unmarshal(raw, &text) == nil {
		return text, true
	}
	// nbformat allows a multiline string as a list of lines.
	var lines []string
	if json.Unmarshal(raw, &lines) != nil {
		return "", false
	}
	for _, l := range lines {
		text += l
	}
	return text, true
}

// wireHeader is a message header on the wire.
type wireHeader struct {
	MsgID    string `json:"msg_id"`
	MsgType  string `json:"msg_type"`
	Session  string `json:"session"`
	Username string `json:"username,omitempty"`
	Date     string `json:"date,omitempty"`
	Version  string `json:"version,omitempty"`
}

// wireMessage is a message as sent and received over the socket.
type wireMessage struct {
	Header       wireHeader      `json:"header"`
	ParentHeader json.RawMessage `json:"parent_header"`
	Metadata     json.RawMessage `json:"metadata"`
	Content      json.RawMessage `json:"content"`
	Channel      string          `json:"channel"`
	Buffers      []any           `json:"buffers"`
}

// errMalformed: a frame that is not a Jupyter message.
var errMalformed = errors.New("not a Jupyter message")

// decode reads one frame's message; binary frames are jupyter_server's
// buffer layout, whose first part is the message's JSON.
func decode(data []byte, binaryFrame bool) (Message, error) {
	if binaryFrame {
		var err error
		if data, err = firstPart(data); err != nil {
			return Message{}, err
		}
	}
	var w struct {
		Header       wireHeader      `json:"header"`
		ParentHeader wireHeader      `json:"parent_header"`
		Content      json.RawMessage `json:"content"`
		Channel      string          `json:"channel"`
	}
	if err := json.Unmarshal(data, &w); err != nil || w.Header.MsgType == "" {
		return Message{}, errMalformed
	}
	return Message{Channel: w.Channel, Type: w.Header.MsgType, ID: w.Header.MsgID, Session: w.Header.Session,
		Date: w.Header.Date, ParentID: w.ParentHeader.MsgID, ParentType: w.ParentHeader.MsgType, Content: w.Content}, nil
}

// firstPart returns the first part of a binary frame: a big-endian
// uint32 count N, N uint32 offsets from the frame's start, then the
// parts, each running to the next offset (the last to the end).
func firstPart(b []byte) ([]byte, error) {
	if len(b) < 8 {
		return nil, errMalformed
	}
	n := binary.BigEndian.Uint32(b)
	if n == 0 || uint64(n) > uint64(len(b)-4)/4 {
		return nil, errMalformed
	}
	start := uint64(binary.BigEndian.Uint32(b[4:]))
	end := uint64(len(b))
	if n > 1 {
		end = uint64(binary.BigEndian.Uint32(b[8:]))
	}
	if start < 4+4*uint64(n) || start > end || end > uint64(len(b)) {
		return nil, errMalformed
	}
	return b[start:end], nil
}

// encodeRequest is the JSON of a request of type msgType on channel,
// with id, the client session and content.
func encodeRequest(channel, msgType, id, session string, content any) ([]byte, error) {
	c, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	return json.Marshal(wireMessage{
		Header: wireHeader{MsgID: id, MsgType: msgType, Session: session, Username: "colabdash",
			Date: time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"), Version: ProtocolVersion},
		ParentHeader: json.RawMessage("{}"),
		Metadata:     json.RawMessage("{}"),
		Content:      c,
		Channel:      channel,
		Buffers:      []any{},
	})
}

// executeRequest is an execute_request's content: no stdin (input()
// fails at once), history kept; StopOnError false (Execute says why).
type executeRequest struct {
	Code            string         `json:"code"`
	Silent          bool           `json:"silent"`
	StoreHistory    bool           `json:"store_history"`
	UserExpressions map[string]any `json:"user_expressions"`
	AllowStdin      bool           `json:"allow_stdin"`
	StopOnError     bool           `json:"stop_on_error"`
}

// executeReply is the part of an execute_reply's content read here.
type executeReply struct {
	Status         string `json:"status"`
	ExecutionCount int    `json:"execution_count"`
}
