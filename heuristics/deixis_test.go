package heuristics

import "testing"

func TestDeixisOf(t *testing.T) {
	for q, want := range map[string]Deixis{
		"this":                           DeicticSelf,
		"it":                             DeicticSelf,
		"here":                           DeicticSelf,
		"the function":                   DeicticSelf,
		"this code":                      DeicticSelf,
		"fix this":                       DeicticSelf,
		"callers":                        DeicticCallers,
		"who calls this":                 DeicticCallers,
		"who calls this function":        DeicticCallers,
		"where is this used":             DeicticCallers,
		"what does this do":              DeicticCallees,
		"explain this code":              DeicticCallees,
		"explain":                        DeicticCallees,
		"who calls parseConfig":          NotDeictic, // names its subject
		"rename the flag in cmd/x.go":    NotDeictic,
		"add a retry to the http client": NotDeictic,
		"make this request retry three times when the server answers with a 503 status": NotDeictic,
	} {
		if got := DeixisOf(Analyze(q)); got != want {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}
