package chats

import "errors"

// Import starts a new session holding the user and model messages of
// conv (another session's, read with LoadFile) after an info message
// saying where they came from, as Gemini CLI's --session-file does, and
// returns the new session's id. The file is complete when Import returns.
func (s *Store) Import(conv *Conversation, note string) (string, error) {
	var kept []Message
	for _, m := range conv.Messages {
		if m.Type == TypeUser || m.Type == TypeGemini {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return "", errors.New("the file holds no user or model message")
	}
	r, err := s.Create("", CreateOptions{})
	if err != nil {
		return "", err
	}
	if _, err := r.RecordInfo(note); err != nil {
		r.Close()
		return "", err
	}
	for _, m := range kept {
		if _, err := r.record(m, false); err != nil {
			r.Close()
			return "", err
		}
	}
	return r.SessionID(), r.Close()
}
