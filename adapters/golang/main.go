// Command adapter is the skill-conform adapter for the Go port of toolnexus (protocol version 1).
//
// It speaks the protocol in ../PROTOCOL.md: JSON Lines requests on stdin, one reply line per
// request on stdout, free-form diagnostics on stderr. It calls only the toolnexus module it was
// built against (`github.com/muthuishere/toolnexus/golang`, package toolnexus) through its
// public API and contains no toolnexus code. Build it with setup.sh, which prints the binary.
//
// CONVERSIONS — everything this adapter does to the port's values before they go on the wire.
// Anything not listed is passed through as the port returned it (order, spelling, whitespace).
//
//  1. SkillInfo.Description == "" → "description": null. Go holds the description as a plain
//     string, so an absent description and an empty one are both "" in the port; the adapter
//     cannot tell them apart and sends null (the port's own Prompt() treats "" as absent too).
//  2. A SkillSkip without a Detail field (older releases, e.g. 0.16.0) → "detail": null. The
//     field is looked up by reflection, so one source builds against old and new releases. A
//     present Detail is sent as is, including "" (never turned into null).
//  3. SkillSkip.Reason (type SkillSkipReason, a string) → its string value.
//  4. A nil slice from the port (Go's empty list: Skills, Skipped) → []. A nil InputSchema
//     map would go out as null.
//  5. Field names: Name/Description/Location/Reason/Detail/Output/IsError/InputSchema → the
//     wire names name/description/location/reason/detail/output/isError/inputSchema.
//     ToolResult.Metadata, Tool.Source and SkillSource.Skipped are not in the protocol and are
//     not sent. InputSchema is a Go map, so encoding/json writes its keys sorted; the runner
//     parses JSON, so key order carries no meaning.
//  6. The hello "version" is the module version from the binary's build information with the
//     leading "v" dropped (v0.20.0 → "0.20.0"). For a local checkout (a replace directive to a
//     directory) it is what setup.sh read from the checkout: its git tags (`golang/vX.Y.Z`, then
//     `vX.Y.Z`; a full-history clone is needed), else the version the checkout's other ports
//     declare in lockstep (java/build.gradle); "(devel)" only when neither can be read.
//  7. An error returned by the port (Tool.Execute's error) → {"case":…,"error":"<Go type>:
//     <message>"}; a panic inside the port → {"case":…,"error":"panic: <value>"}, with the
//     stack on stderr. Nothing else from that case is sent.
//  8. A reply holding a string that is not valid UTF-8 (Go strings are bytes; the port keeps
//     a file's raw bytes, and encoding/json would silently turn them into U+FFFD) →
//     {"case":…,"error":"adapter: cannot encode reply: invalid UTF-8 in <json path>"}.
//
// Inputs go to the port unchanged: roots as the []string received (same order, no cleaning),
// filter as the map[string]bool received ({} stays an empty, non-nil map; the port treats
// nil and empty alike), sampleLimit as received (a Go int is 64 bits, so any JSON integer up
// to ±2^63 fits), each load name as map[string]any{"name": n}, the ToolContext as nil.
//
// STREAMS. At start-up the adapter keeps private duplicates of fd 1 (for replies) and fd 0
// (for requests), points fd 1 at stderr and fd 0 at /dev/null. So nothing the library prints
// (log.Printf goes to stderr anyway; a stray fmt.Println would reach fd 1), and no child
// process, can touch the protocol stream, and nothing can read the requests.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	toolnexus "github.com/muthuishere/toolnexus/golang"
)

const (
	protocolVersion = 1
	portName        = "golang"
	libraryName     = "toolnexus"
	modulePath      = "github.com/muthuishere/toolnexus/golang"
)

// checkoutVersion is set by setup.sh (-ldflags -X) when building against a local checkout.
var checkoutVersion string

// ---------------------------------------------------------------------------------------------
// wire types (field order = the order in PROTOCOL.md)

type skillOut struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Location    string  `json:"location"`
}

type skipOut struct {
	Location string  `json:"location"`
	Reason   string  `json:"reason"`
	Detail   *string `json:"detail"`
}

type inventoryOut struct {
	Skills  []skillOut `json:"skills"`
	Skipped []skipOut  `json:"skipped"`
}

type loadOut struct {
	Name    string `json:"name"`
	IsError bool   `json:"isError"`
	Output  string `json:"output"`
}

type toolOut struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"`
}

type runReply struct {
	Case      string       `json:"case"`
	Inventory inventoryOut `json:"inventory"`
	Loads     []loadOut    `json:"loads"`
	Prompt    string       `json:"prompt"`
	Tool      *toolOut     `json:"tool,omitempty"`
}

type caseError struct {
	Case  string `json:"case"`
	Error string `json:"error"`
}

type requestError struct {
	Error string `json:"error"`
}

type helloReply struct {
	Protocol int    `json:"protocol"`
	Port     string `json:"port"`
	Library  string `json:"library"`
	Version  string `json:"version"`
	Runtime  string `json:"runtime"`
	// The versions of the modules that decide verdicts, the YAML library first.
	Libraries map[string]string `json:"libraries"`
}

// verdictModules are the modules whose versions hello reports in "libraries".
var verdictModules = []string{"gopkg.in/yaml.v3"}

type runRequest struct {
	Case        string
	Roots       []string
	SampleLimit int
	Filter      map[string]bool
	Load        []string
	Tool        bool
}

// ---------------------------------------------------------------------------------------------
// output

var protoOut io.Writer

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[adapter-golang] "+format+"\n", args...)
}

// encode renders v as one JSON line (with the trailing newline).
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func send(v any) {
	line, err := encode(v)
	if err != nil {
		// Only reachable for a reply the adapter built itself; keep the protocol alive.
		logf("cannot encode %T: %v", v, err)
		line, _ = encode(requestError{Error: "adapter: cannot encode reply: " + err.Error()})
	}
	if _, err := protoOut.Write(line); err != nil {
		logf("cannot write reply: %v", err)
		os.Exit(1)
	}
}

func sendRequestError(format string, args ...any) {
	send(requestError{Error: strings.ToValidUTF8(fmt.Sprintf(format, args...), "\uFFFD")})
}

func sendCaseError(c, msg string) {
	send(caseError{Case: c, Error: strings.ToValidUTF8(msg, "\uFFFD")})
}

// ---------------------------------------------------------------------------------------------
// hello

func libraryVersion() (string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", errors.New("the binary carries no build information")
	}
	for _, dep := range info.Deps {
		if dep.Path != modulePath {
			continue
		}
		if dep.Replace != nil {
			// A directory replacement (a local checkout) has the version "(devel)".
			if v := dep.Replace.Version; v != "" && v != "(devel)" { // another module version
				return strings.TrimPrefix(v, "v"), nil
			}
			if checkoutVersion != "" { // replaced by a directory: a local checkout
				return checkoutVersion, nil
			}
			return "(devel)", nil
		}
		return strings.TrimPrefix(dep.Version, "v"), nil
	}
	return "", fmt.Errorf("%s is not among the binary's dependencies", modulePath)
}

// verdictLibraries reads each of verdictModules' versions from the binary's build information.
func verdictLibraries() map[string]string {
	found := map[string]string{}
	for _, path := range verdictModules {
		found[path] = "not linked"
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if _, wanted := found[dep.Path]; wanted {
				found[dep.Path] = strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	return found
}

func hello(req map[string]json.RawMessage) {
	raw, ok := req["protocol"]
	var proto int64
	if !ok || json.Unmarshal(raw, &proto) != nil || proto != protocolVersion {
		shown := "missing"
		if ok {
			shown = string(raw)
		}
		sendRequestError("unsupported protocol %s; this adapter speaks %d", shown, protocolVersion)
		return
	}
	version, err := libraryVersion()
	if err != nil {
		sendRequestError("cannot load %s: %v", libraryName, err)
		return
	}
	send(helloReply{
		Protocol:  protocolVersion,
		Port:      portName,
		Library:   libraryName,
		Version:   version,
		Runtime:   runtime.Version(),
		Libraries: verdictLibraries(),
	})
}

// ---------------------------------------------------------------------------------------------
// run: request parsing

type badRequest struct{ msg string }

func (b badRequest) Error() string { return b.msg }

func field(req map[string]json.RawMessage, key string) (json.RawMessage, error) {
	raw, ok := req[key]
	if !ok {
		return nil, badRequest{fmt.Sprintf("run: missing field '%s'", key)}
	}
	return raw, nil
}

func wrong(key, what string, raw json.RawMessage) error {
	shown := string(raw)
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	return badRequest{fmt.Sprintf("run: field '%s' must be %s, got %s", key, what, shown)}
}

// decodeStrict decodes raw into dst and rejects JSON null (Go would leave dst at its zero
// value) and, for integers, anything that is not a whole number.
func decodeStrict(raw json.RawMessage, dst any) bool {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return false
	}
	return json.Unmarshal(raw, dst) == nil
}

func parseRun(req map[string]json.RawMessage) (runRequest, error) {
	var r runRequest
	raw, err := field(req, "case")
	if err != nil {
		return r, err
	}
	if !decodeStrict(raw, &r.Case) {
		return r, wrong("case", "a string", raw)
	}

	// Arrays and objects are decoded through pointers: encoding/json would quietly turn a
	// null element into "" or false, and the port must never get a value the runner did not
	// send.
	if raw, err = field(req, "roots"); err != nil {
		return r, err
	}
	var roots []*string
	if !decodeStrict(raw, &roots) || !noNil(roots) {
		return r, wrong("roots", "an array of strings", raw)
	}
	r.Roots = make([]string, 0, len(roots))
	for _, s := range roots {
		r.Roots = append(r.Roots, *s)
	}

	if raw, err = field(req, "sampleLimit"); err != nil {
		return r, err
	}
	if !decodeStrict(raw, &r.SampleLimit) {
		return r, wrong("sampleLimit", "an integer", raw)
	}

	if raw, err = field(req, "filter"); err != nil {
		return r, err
	}
	var filter map[string]*bool
	if !decodeStrict(raw, &filter) {
		return r, wrong("filter", "an object of booleans", raw)
	}
	r.Filter = make(map[string]bool, len(filter))
	for k, v := range filter {
		if v == nil {
			return r, wrong("filter", "an object of booleans", raw)
		}
		r.Filter[k] = *v
	}

	if raw, err = field(req, "load"); err != nil {
		return r, err
	}
	var load []*string
	if !decodeStrict(raw, &load) || !noNil(load) {
		return r, wrong("load", "an array of strings", raw)
	}
	r.Load = make([]string, 0, len(load))
	for _, s := range load {
		r.Load = append(r.Load, *s)
	}

	if raw, err = field(req, "tool"); err != nil {
		return r, err
	}
	if !decodeStrict(raw, &r.Tool) {
		return r, wrong("tool", "a boolean", raw)
	}
	return r, nil
}

func noNil(xs []*string) bool {
	for _, x := range xs {
		if x == nil {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------------------------
// run: the calls

type portPanic struct {
	value any
	stack []byte
}

func (p portPanic) Error() string { return fmt.Sprintf("panic: %v", p.value) }

func describe(err error) string {
	var p portPanic
	if errors.As(err, &p) {
		return p.Error()
	}
	return fmt.Sprintf("%T: %v", err, err)
}

func optionalString(s string) *string {
	if s == "" {
		return nil // conversion 1
	}
	return &s
}

// skipDetail reads SkillSkip.Detail if this release has it (conversion 2).
func skipDetail(skip toolnexus.SkillSkip) *string {
	f := reflect.ValueOf(skip).FieldByName("Detail")
	if !f.IsValid() || f.Kind() != reflect.String {
		return nil
	}
	s := f.String()
	return &s
}

func runCase(r runRequest) (reply runReply, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = portPanic{value: p, stack: debug.Stack()}
		}
	}()

	roots := append([]string(nil), r.Roots...)

	// 1. the inventory: roots only
	inv := toolnexus.ListSkills(toolnexus.LoadSkillsOptions{Dirs: roots})
	inventory := inventoryOut{Skills: []skillOut{}, Skipped: []skipOut{}}
	if inv != nil {
		for _, s := range inv.Skills {
			inventory.Skills = append(inventory.Skills, skillOut{
				Name:        s.Name,
				Description: optionalString(s.Description),
				Location:    s.Location,
			})
		}
		for _, s := range inv.Skipped {
			inventory.Skipped = append(inventory.Skipped, skipOut{
				Location: s.Location,
				Reason:   string(s.Reason),
				Detail:   skipDetail(s),
			})
		}
	}

	// 2. one load with the roots, the filter and the sample limit
	src := toolnexus.LoadSkillsWith(toolnexus.LoadSkillsOptions{
		Dirs:        append([]string(nil), r.Roots...),
		Filter:      r.Filter,
		SampleLimit: r.SampleLimit,
	})
	if src == nil {
		return reply, errors.New("LoadSkillsWith returned nil")
	}
	if src.Tool.Execute == nil {
		return reply, errors.New("the skill tool has no Execute function")
	}

	// 3. the skill tool, once per name, in order
	loads := make([]loadOut, 0, len(r.Load))
	for _, name := range r.Load {
		res, xerr := src.Tool.Execute(map[string]any{"name": name}, nil)
		if xerr != nil {
			return reply, xerr
		}
		loads = append(loads, loadOut{Name: name, IsError: res.IsError, Output: res.Output})
	}

	// 4. the prompt
	prompt := src.Prompt()

	reply = runReply{Case: r.Case, Inventory: inventory, Loads: loads, Prompt: prompt}
	// 5. the tool declaration, when asked
	if r.Tool {
		var schema any
		if src.Tool.InputSchema != nil {
			schema = src.Tool.InputSchema
		}
		reply.Tool = &toolOut{Name: src.Tool.Name, Description: src.Tool.Description, InputSchema: schema}
	}
	return reply, nil
}

// invalidUTF8 returns the JSON path of the first string (or map key) in v that is not valid
// UTF-8, or "" when every string is valid (conversion 8).
func invalidUTF8(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return invalidUTF8(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
			if name == "" {
				name = t.Field(i).Name
			}
			if p := invalidUTF8(v.Field(i), path+"."+name); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p := invalidUTF8(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := fmt.Sprint(iter.Key().Interface())
			if !utf8.ValidString(k) {
				return path + " (a key)"
			}
			if p := invalidUTF8(iter.Value(), path+"."+k); p != "" {
				return p
			}
		}
	}
	return ""
}

func run(req map[string]json.RawMessage) {
	r, err := parseRun(req)
	if err != nil {
		sendRequestError("%s", err.Error())
		return
	}
	reply, err := runCase(r)
	if err != nil {
		logf("case %s: the port failed: %s", r.Case, describe(err))
		var p portPanic
		if errors.As(err, &p) {
			os.Stderr.Write(p.stack)
		}
		sendCaseError(r.Case, describe(err))
		return
	}
	if p := invalidUTF8(reflect.ValueOf(reply), ""); p != "" {
		logf("case %s: reply not encodable (invalid UTF-8 at %s)", r.Case, p)
		sendCaseError(r.Case, "adapter: cannot encode reply: invalid UTF-8 in "+strings.TrimPrefix(p, "."))
		return
	}
	line, err := encode(reply)
	if err != nil {
		logf("case %s: reply not encodable: %v", r.Case, err)
		sendCaseError(r.Case, "adapter: cannot encode reply: "+err.Error())
		return
	}
	if _, err := protoOut.Write(line); err != nil {
		logf("cannot write reply: %v", err)
		os.Exit(1)
	}
}

// ---------------------------------------------------------------------------------------------
// main loop

// handle answers one request line; it returns false when the adapter should exit.
func handle(line []byte) bool {
	if len(bytes.TrimSpace(line)) == 0 {
		return true // blank lines are not requests
	}
	if !utf8.Valid(line) {
		sendRequestError("request is not UTF-8")
		return true
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(line, &req); err != nil || req == nil {
		var anyValue any
		if json.Unmarshal(line, &anyValue) == nil {
			sendRequestError("request is not a JSON object")
		} else {
			sendRequestError("request is not JSON: %v", err)
		}
		return true
	}
	var cmd string
	if raw, ok := req["cmd"]; !ok || !decodeStrict(raw, &cmd) {
		shown := "missing"
		if ok {
			shown = string(raw)
		}
		sendRequestError("unknown cmd %s", shown)
		return true
	}
	switch cmd {
	case "bye":
		return false
	case "hello":
		hello(req)
	case "run":
		run(req)
	default:
		b, _ := json.Marshal(cmd)
		sendRequestError("unknown cmd %s", b)
	}
	return true
}

func main() {
	in, out, err := protectStreams()
	if err != nil {
		fmt.Fprintf(os.Stderr, "[adapter-golang] cannot set up the protocol streams: %v\n", err)
		os.Exit(1)
	}
	protoOut = out
	reader := bufio.NewReaderSize(in, 1<<16)
	for {
		line, err := reader.ReadBytes('\n')
		if len(line) > 0 && !handle(line) {
			os.Exit(0)
		}
		if err != nil {
			if err != io.EOF {
				logf("reading stdin: %v", err)
			}
			os.Exit(0) // EOF means bye
		}
	}
}
