package tui

import (
	"context"
	"fmt"
	"github.com/parley-acp/parley/internal/filelist"
	"os"
	"strings"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/toolui"
)

// model is the screen: the conversations (one shown at a time), the composer, and what
// may stand in the composer's place (a question, a picker). It owns all of it; the
// conversations are told what the user does through their commands, and what waits for
// an agent runs in a command (tea.Cmd), never in Update.
type model struct {
	ctx    context.Context
	opts   Options
	st     styles
	md     *markdown
	dark   bool
	width  int
	height int

	convs  []*convView
	active int

	comp    *composer
	files   *filelist.Index
	picker  *picker
	finding bool   // ctrl+f: the search line is open
	findQ   string //

	ticking   bool         // a tick is scheduled
	lastCtrlC time.Time    // for "ctrl+c again quits"
	armed     bool         // the next ctrl+c quits
	welcome   *welcomeItem // the first screen, at the top of the first conversation
	welcomeAt *entry
	quitting  bool
	flash     string // a short message in the status line, until the next key
	lastPoll  time.Time
	prog      *tea.Program // for a sign-in's program, which takes the terminal
}

// quitWindow is how soon a second Ctrl-C must follow the first to quit between turns
// (while a turn is being cancelled, any second one quits).
const quitWindow = 2 * time.Second

type (
	tickMsg   time.Time
	signalMsg struct{ sig os.Signal }
	filesMsg  struct{ idx *filelist.Index }
	disarmMsg struct{ at time.Time }
	// resultMsg reports a command that waited for an agent.
	resultMsg struct {
		conv int
		text string
		err  error
		then func(m *model) tea.Cmd
	}
	outputMsg struct {
		conv    int
		outputs map[*entry]*acp.TerminalOutputResponse
	}
)

func newModel(ctx context.Context, o Options) *model {
	m := &model{ctx: ctx, opts: o, dark: true}
	m.st = newStyles(true)
	m.md = newMarkdown(true)
	m.comp = newComposer(m.st, loadHistory(o.HistoryFile))
	m.convs = []*convView{newConvView(0, o.First, m.st, m.md)}
	m.convs[0].tr.ctx.root = o.Workspace
	m.welcome = &welcomeItem{workspace: o.Workspace, agent: o.First.Name, sel: -1, choosable: o.Start != nil}
	m.welcomeAt = m.convs[0].tr.add(m.welcome)
	return m
}

func (m *model) cur() *convView { return m.convs[m.active] }

func (m *model) Init() tea.Cmd {
	root := m.opts.Workspace
	return tea.Batch(
		tea.RequestBackgroundColor,
		m.cur().pump(m.ctx, time.Time{}),
		func() tea.Msg {
			ctx, cancel := context.WithTimeout(m.ctx, 30*time.Second)
			defer cancel()
			idx, _ := filelist.NewIndex(ctx, root) // no index: @ completes nothing
			return filesMsg{idx}
		},
		m.tick(),
		m.listKnown(),
	)
}

// tick schedules the next frame of the spinners, while something moves.
func (m *model) tick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *model) anyBusy() bool {
	for _, cv := range m.convs {
		if cv.busy() || len(cv.runningTerminals()) > 0 {
			return true
		}
		for _, e := range cv.tools {
			if e.it.(*toolItem).running() {
				return true
			}
		}
	}
	return false
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.comp.setWidth(m.width)
		return m, nil
	case tea.BackgroundColorMsg:
		if dark := msg.IsDark(); dark != m.dark {
			m.setTheme(dark)
		}
		return m, nil
	case tickMsg:
		m.ticking = false
		now := time.Time(msg)
		for _, cv := range m.convs {
			cv.tr.tick(now)
		}
		var cmds []tea.Cmd
		if m.anyBusy() {
			cmds = append(cmds, m.tick())
		}
		cmds = append(cmds, m.pollOutputs())
		return m, tea.Batch(cmds...)
	case eventsMsg:
		return m, m.onEvents(msg)
	case filesMsg:
		m.files = msg.idx
		return m, nil
	case outputMsg:
		m.onOutputs(msg)
		return m, nil
	case resultMsg:
		return m, m.onResult(msg)
	case startedMsg:
		return m, m.onStarted(msg)
	case execMsg:
		return m, m.onExec(msg)
	case knownMsg:
		if m.welcome != nil {
			m.welcome.known = msg.agents
			m.convs[0].tr.changed(m.welcomeAt)
		}
		return m, nil
	case changesMsg:
		cv := m.convs[msg.conv]
		switch {
		case msg.err != nil:
			cv.notice("parley: "+msg.err.Error(), true)
		case msg.item != nil:
			cv.endStream()
			cv.tr.add(msg.item)
			cv.tr.offset = 0
		case msg.text != "":
			cv.notice(msg.text, false)
		}
		return m, nil
	case reopenPicker:
		m.picker = msg.p
		return m, nil
	case disarmMsg:
		if m.armed && msg.at.Equal(m.lastCtrlC) && m.cur().running == 0 {
			m.armed = false
		}
		return m, nil
	case signalMsg:
		if msg.sig == syscall.SIGTERM {
			return m, m.quit()
		}
		return m, m.ctrlC()
	case tea.PasteMsg:
		if e := m.cur().elicit; e != nil {
			e.paste(msg.Content)
			return m, nil
		}
		if m.cur().question != nil || m.picker != nil {
			return m, nil // a paste never answers a question nor mixes into one
		}
		if m.finding {
			m.findQ += strings.ReplaceAll(msg.Content, "\n", " ")
			return m, nil
		}
		cmd := m.comp.update(msg)
		m.comp.updateCompletion(m.files, m.commands())
		return m, cmd
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.cur().tr.scroll(3)
		case tea.MouseWheelDown:
			m.cur().tr.scroll(-3)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	}
	return m, nil
}

func (m *model) setTheme(dark bool) {
	m.dark = dark
	m.st = newStyles(dark)
	m.md = newMarkdown(dark)
	for _, cv := range m.convs {
		cv.tr.ctx.st, cv.tr.ctx.md = m.st, m.md
		for _, e := range cv.tr.entries {
			e.stale = true
			if a, ok := e.it.(*agentItem); ok {
				a.reset(-1)
			}
		}
	}
	m.comp.st = m.st
}

func (m *model) onEvents(msg eventsMsg) tea.Cmd {
	cv := m.convs[msg.conv]
	now := time.Now()
	var back []string
	hadQuestion, hadElicit := cv.question, cv.elicit
	for _, ev := range msg.events {
		if text := cv.apply(ev, now); text != "" {
			back = append(back, text)
		}
	}
	if len(back) > 0 && cv.id == m.active {
		// Prompts taken back (Esc, or a cancel) return to the composer.
		text := strings.Join(back, "\n\n")
		if cur := m.comp.value(); strings.TrimSpace(cur) != "" {
			text += "\n\n" + cur
		}
		m.comp.setValue(text)
	}
	if cv.elicit != nil && cv.elicit != hadElicit {
		cv.elicit.shownAt = now
		m.picker = nil
		m.comp.closeCompletion()
	}
	if cv.askSignIn && cv.id == m.active && cv.question == nil && cv.elicit == nil {
		cv.askSignIn = false
		m.loginPicker("")
	}
	if cv.question != nil && cv.question != hadQuestion {
		// The question is drawn in this frame: keys count from now on.
		cv.question.shownAt = now
		m.picker = nil
		m.comp.closeCompletion()
	}
	cmds := []tea.Cmd{m.tick(), m.pollOutputs()}
	if d := cv.lasted; d > 0 {
		// A long turn's end rings the bell: whoever looked away hears it is their turn.
		cv.lasted = 0
		if m.opts.BellAfter > 0 && d >= m.opts.BellAfter {
			cmds = append(cmds, tea.Raw("\a"))
		}
	}
	if !cv.closed {
		cmds = append(cmds, cv.pump(m.ctx, now))
	}
	if m.quitting && cv.running == 0 {
		cmds = append(cmds, tea.Quit)
	}
	if cv.running == 0 && m.armed && !cv.cancelling {
		// The cancel is over: a second ctrl+c still quits within the window.
		at := m.lastCtrlC
		cmds = append(cmds, tea.Tick(time.Until(at.Add(quitWindow)), func(time.Time) tea.Msg { return disarmMsg{at} }))
	}
	return tea.Batch(cmds...)
}

// onKey routes a key: Ctrl-C first, then whatever stands in the composer's place.
func (m *model) onKey(k tea.KeyPressMsg) tea.Cmd {
	m.flash = ""
	cv := m.cur()
	s := k.String()
	if s == "ctrl+c" {
		return m.ctrlC()
	}
	if m.armed && cv.running == 0 {
		m.armed = false // another key between turns: the next Ctrl-C starts over
	}
	if q := cv.question; q != nil {
		if a, ok := q.key(k, time.Now()); ok {
			cv.conv.Conversation.Answer(q.q.ID, a)
			cv.question = nil
		}
		return nil
	}
	if e := cv.elicit; e != nil && cv.question == nil {
		if e.key(k, time.Now()) {
			cv.elicit = nil
		}
		return nil
	}
	if m.picker != nil {
		cmd, done := m.picker.key(k)
		if done {
			m.picker = nil
		}
		return cmd
	}
	if m.comp.searching {
		m.comp.searchKey(k)
		return nil
	}
	if m.finding {
		return m.findKey(k)
	}
	if !m.comp.comp.active {
		if cmd, ok := m.welcomeKey(s); ok {
			return cmd
		}
	}
	switch s {
	case "pgup":
		cv.tr.scroll(max(1, cv.tr.height-2))
		return nil
	case "pgdown":
		cv.tr.scroll(-max(1, cv.tr.height-2))
		return nil
	case "ctrl+home":
		cv.tr.scroll(1 << 30)
		return nil
	case "ctrl+end":
		cv.tr.offset = 0
		return nil
	case "ctrl+o":
		if !cv.tr.toggleSelected() {
			m.flash = "nothing to expand"
		}
		return nil
	case "alt+up", "ctrl+up":
		cv.tr.selectNext(-1)
		return nil
	case "alt+down", "ctrl+down":
		if !cv.tr.selectNext(1) {
			cv.tr.sel = -1
			cv.tr.offset = 0
		}
		return nil
	case "ctrl+f":
		m.finding, m.findQ = true, ""
		return nil
	case "ctrl+r":
		m.comp.startSearch()
		return nil
	case "shift+tab":
		return m.cycleMode()
	case "ctrl+d":
		if m.comp.value() == "" {
			return m.quit()
		}
	case "esc":
		switch {
		case m.comp.comp.active:
			m.comp.closeCompletion()
		case len(cv.queued) > 0:
			p := cv.queued[len(cv.queued)-1]
			conv := cv.conv.Conversation
			return func() tea.Msg { conv.Unqueue(p.ID); return nil }
		case cv.running != 0:
			// Esc stops the turn, as in the agents' own terminal UIs; unlike Ctrl-C it
			// never arms a quit.
			m.cancelTurn(cv)
		case cv.tr.sel >= 0:
			cv.tr.sel = -1
		case cv.tr.offset > 0:
			cv.tr.offset = 0
		}
		return nil
	}
	if m.comp.comp.active {
		switch s {
		case "tab", "enter":
			slash := m.comp.comp.kind == '/'
			needsArg := slash && m.comp.comp.items[m.comp.comp.sel].needsArg
			m.comp.acceptCompletion()
			if s == "enter" && slash && !needsArg {
				return m.submit() // a command that needs nothing more runs at once
			}
			m.comp.updateCompletion(m.files, m.commands())
			return nil
		case "up", "ctrl+p":
			m.comp.moveCompletion(-1)
			return nil
		case "down", "ctrl+n":
			m.comp.moveCompletion(1)
			return nil
		}
	}
	if s == "enter" {
		return m.submit()
	}
	cmd := m.comp.update(k)
	m.comp.updateCompletion(m.files, m.commands())
	return cmd
}

func (m *model) findKey(k tea.KeyPressMsg) tea.Cmd {
	tr := m.cur().tr
	switch k.String() {
	case "esc", "ctrl+g":
		m.finding = false
		tr.endSearch()
	case "enter", "ctrl+f", "up":
		tr.nextMatch(-1)
	case "down", "shift+enter":
		tr.nextMatch(1)
	case "backspace":
		if m.findQ != "" {
			r := []rune(m.findQ)
			m.findQ = string(r[:len(r)-1])
			tr.find(m.findQ)
		}
	default:
		if k.Text != "" {
			m.findQ += k.Text
			tr.find(m.findQ)
		}
	}
	return nil
}

// ctrlC: refuse the question on screen and cancel the turn; a second Ctrl-C quits,
// whether or not the cancel is over; between turns, two within quitWindow quit (the
// first also clears what is typed).
func (m *model) ctrlC() tea.Cmd {
	cv := m.cur()
	now := time.Now()
	if m.quitting {
		return tea.Quit
	}
	if m.armed && (cv.cancelling || now.Sub(m.lastCtrlC) < quitWindow) {
		return m.quit()
	}
	m.armed, m.lastCtrlC = true, now
	if cv.question != nil {
		cv.conv.Conversation.Answer(cv.question.q.ID, permission.RejectOnce)
		cv.question = nil
	} else if cv.elicit != nil {
		cv.elicit.action(acp.ElicitationActionCancel)
		cv.elicit = nil
	}
	if cv.signingIn {
		cv.conv.Conversation.CancelSignIn()
	}
	switch {
	case m.picker != nil:
		m.picker = nil
	case m.comp.searching:
		m.comp.searching = false
	case m.finding:
		m.finding = false
		cv.tr.endSearch()
	}
	if cv.running != 0 {
		m.cancelTurn(cv)
		return nil
	}
	if m.comp.value() != "" {
		m.comp.reset()
	}
	at := now
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return disarmMsg{at} })
}

// cancelTurn asks the agent to stop the turn (Esc, Ctrl-C).
func (m *model) cancelTurn(cv *convView) {
	cv.cancelling = true
	cv.conv.Conversation.Cancel()
}

// quit leaves: the owner closes the conversations (cancelling what runs) once Run
// returns.
func (m *model) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}

// submit sends what the composer holds, or runs the command it holds.
func (m *model) submit() tea.Cmd {
	text := m.comp.value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	cv := m.cur()
	m.dropWelcome()
	m.comp.hist.add(text)
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "/") && !strings.HasPrefix(trimmed, "//") {
		if cmd, ok := m.parleyCommand(trimmed); ok {
			m.comp.reset()
			return cmd
		}
	}
	m.comp.reset()
	blocks, labels, notes := promptContent(text, m.opts.Workspace, cv.session.Attach)
	for _, n := range notes {
		cv.notice(n, true)
	}
	p := cv.conv.Conversation.Send(blocks)
	if cv.running == 0 {
		cv.sending = p.ID // something moves until the turn starts
	}
	if len(labels) > 0 {
		cv.labels[p.ID] = labels
	}
	cv.tr.offset = 0
	return m.tick()
}

// pollOutputs reads the terminals of running tool calls (on a command: the agent's
// client answers from memory, but never on the UI's goroutine).
func (m *model) pollOutputs() tea.Cmd {
	if now := time.Now(); now.Sub(m.lastPoll) < 100*time.Millisecond {
		return nil
	} else {
		m.lastPoll = now
	}
	var cmds []tea.Cmd
	for _, cv := range m.convs {
		read := cv.conv.TerminalOutput
		if read == nil {
			continue
		}
		type want struct {
			e  *entry
			id acp.TerminalID
		}
		var wants []want
		for _, e := range cv.runningTerminals() {
			t := e.it.(*toolItem)
			wants = append(wants, want{e, t.tc.Terminals[len(t.tc.Terminals)-1]})
		}
		if len(wants) == 0 {
			continue
		}
		sid, id, ctx := cv.session.ID, cv.id, m.ctx
		cmds = append(cmds, func() tea.Msg {
			out := outputMsg{conv: id, outputs: map[*entry]*acp.TerminalOutputResponse{}}
			for _, w := range wants {
				c, cancel := context.WithTimeout(ctx, time.Second)
				resp, err := read(c, &acp.TerminalOutputRequest{SessionID: sid, TerminalID: w.id})
				cancel()
				if err != nil {
					resp = nil // released: what was read last stays
				}
				out.outputs[w.e] = resp
			}
			return out
		})
	}
	return tea.Batch(cmds...)
}

func (m *model) onOutputs(msg outputMsg) {
	cv := m.convs[msg.conv]
	for e, resp := range msg.outputs {
		t := e.it.(*toolItem)
		if resp == nil {
			if !t.running() {
				t.outputEnd = true
			}
			continue
		}
		t.output = resp.Output
		if resp.ExitStatus != nil && !t.running() {
			t.outputEnd = true
		}
		cv.tr.changed(e)
	}
}

func (m *model) onResult(r resultMsg) tea.Cmd {
	cv := m.convs[r.conv]
	if r.err != nil {
		cv.notice("parley: "+r.err.Error(), true)
	} else if r.text != "" {
		cv.notice(r.text, false)
	}
	if r.then != nil && r.err == nil {
		return r.then(m)
	}
	return nil
}

// View draws the screen: the transcript above, then what is queued, the completion
// list, the composer (or the question, or a picker), and the status line.
func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if m.width == 0 || m.height == 0 {
		v.SetContent("")
		return v
	}
	cv := m.cur()
	v.WindowTitle = "parley · " + cv.conv.Name
	if t := cv.session.Title; t != "" {
		v.WindowTitle += " · " + toolui.SafeText(oneLine(t))
	}
	var bottom []string
	bottom = append(bottom, m.queuedLines(cv)...)
	var input string
	var inputCursor *tea.Cursor
	switch {
	case cv.question != nil:
		input = cv.question.view(m.st, cv.tr.ctx.root, m.width, max(6, m.height*2/3))
	case cv.elicit != nil:
		var row, col int
		input, row, col = cv.elicit.view(m.st, m.width, max(6, m.height*2/3))
		if row >= 0 {
			inputCursor = tea.NewCursor(col, row)
		}
	case m.picker != nil:
		input = m.picker.view(m.st, m.width, min(15, max(4, m.height/2)))
	case m.finding:
		n := len(cv.tr.matches)
		at := ""
		if n > 0 {
			at = fmt.Sprintf(" (%d of %d)", cv.tr.matchAt+1, n)
		} else if m.findQ != "" {
			at = " (no match)"
		}
		input = m.st.accent.Render("find: ") + m.findQ + m.st.dim.Render(at+"  enter/↑ previous · ↓ next · esc closes")
	default:
		if pop := m.comp.completionView(); pop != "" {
			bottom = append(bottom, pop)
		}
		input = m.comp.view()
		inputCursor = m.comp.cursor()
	}
	rule := m.st.dim.Render(strings.Repeat("─", m.width))
	bottom = append(bottom, rule)
	above := len(strings.Split(strings.Join(bottom, "\n"), "\n"))
	bottom = append(bottom, input, m.statusLine(cv))
	bottomText := strings.Join(bottom, "\n")
	bh := strings.Count(bottomText, "\n") + 1
	th := max(1, m.height-bh)
	cv.tr.setSize(m.width, th)
	lines := cv.tr.view()
	var b strings.Builder
	for i := len(lines); i < th; i++ {
		b.WriteByte('\n')
	}
	for _, l := range lines {
		b.WriteString(xansi.Truncate(l, m.width, ""))
		b.WriteByte('\n')
	}
	b.WriteString(bottomText)
	v.SetContent(b.String())
	if inputCursor != nil {
		inputCursor.Position.Y += th + above
		v.Cursor = inputCursor
	}
	return v
}

func (m *model) queuedLines(cv *convView) []string {
	var out []string
	for i, p := range cv.queued {
		text := strings.ReplaceAll(strings.TrimSpace(p.Text()), "\n", " ⏎ ")
		hint := ""
		if i == len(cv.queued)-1 {
			hint = m.st.dim.Render("  (queued · esc takes it back)")
		}
		out = append(out, xansi.Truncate(m.st.dim.Render("⧗ ")+m.st.user.Render(text), m.width-30, "…")+hint)
	}
	return out
}

// printable is every conversation's transcript, for the normal screen.
func (m *model) printable() string {
	width := m.width
	if width == 0 {
		width = 80
	}
	var b strings.Builder
	for i, cv := range m.convs {
		if len(cv.tr.entries) == 0 {
			continue
		}
		if len(m.convs) > 1 || i > 0 {
			fmt.Fprintf(&b, "── %s ──\n", cv.conv.Name)
		}
		b.WriteString(cv.tr.printable(width))
	}
	return b.String()
}
