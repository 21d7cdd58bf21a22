package safety

import (
	"strings"
	"sync"
)

// fixed returns a judge that always gives the same finding.
func fixed(t Tier, reason string) judge {
	return func(a *analyzer, c *call) {
		if versionQuery(c.args) {
			return
		}
		a.add(t, c.text, reason)
	}
}

// harmless judges a program that changes nothing.
func harmless(*analyzer, *call) {}

// kill judges kill: signalling every process (-1) or init (1) is Critical, others High.
func kill(a *analyzer, c *call) {
	args := c.args
	if len(args) > 0 && args[0].lit {
		switch v := args[0].val; {
		case v == "-l" || v == "-L" || v == "--list" || v == "--table":
			return
		case v == "-s" || v == "-n" || v == "--signal":
			args = args[min(2, len(args)):]
		case strings.HasPrefix(v, "-") && v != "--" && len(args) > 1:
			args = args[1:] // -9, -KILL, -SIGTERM, and -1 when a target follows
		}
	}
	for _, w := range args {
		switch w.val {
		case "-1":
			a.add(Critical, c.text, "signals every process you may signal (kill -1)")
			return
		case "1":
			a.add(Critical, c.text, "signals init, the machine's first process")
			return
		}
	}
	a.add(High, c.text, "stops or signals processes (kill)")
}

// killByName judges pkill, killall and their kind.
func killByName(a *analyzer, c *call) {
	switch c.name {
	case "killall5":
		a.add(Critical, c.text, "signals every process on the machine (killall5)")
	default:
		a.add(High, c.text, "stops every process that matches by name ("+c.name+")")
	}
}

// systemctl judges service management: status is harmless, stopping or disabling is
// High, power actions Critical.
func systemctl(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "tpHMnoS", long: []string{"type", "property", "host", "machine", "lines", "output", "signal", "kill-whom", "state", "root", "job-mode"}})
	if len(p.operands) == 0 {
		return
	}
	verb := c.args[p.operands[0]].val
	switch verb {
	case "status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-jobs", "is-active", "is-enabled", "is-failed", "list-dependencies", "help", "get-default":
		// -H and -M reach another machine or container; not listed.
		a.checkOptions(c, &systemctlQueryOptions)
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "rescue", "emergency", "soft-reboot":
		a.add(Critical, c.text, "shuts down, restarts or suspends the machine (systemctl "+verb+")")
	case "start", "restart", "reload", "try-restart", "reload-or-restart", "daemon-reload":
		a.add(Medium, c.text, "starts or restarts services (systemctl "+verb+")")
	default:
		a.add(High, c.text, "changes services (systemctl "+verb+")")
	}
}

// systemctlQueryOptions are systemctl's options for its queries.
var systemctlQueryOptions = opts{short: "alqrfi", shortArg: "tpnoPs",
	long:    "all full quiet no-pager no-legend plain user system global recursive reverse failed value show-types legend with-dependencies after before help version",
	longArg: "type property state lines output kill-whom signal job-mode", reads: "root"}

func service(a *analyzer, c *call) {
	if len(c.args) < 2 || c.args[1].val == "status" {
		return
	}
	a.add(High, c.text, "starts, stops or changes a service ("+c.name+" "+c.args[1].val+")")
}

// initProgram judges init/telinit: runlevels 0 and 6 stop or restart the machine.
func initProgram(a *analyzer, c *call) {
	for _, w := range c.args {
		if w.val == "0" || w.val == "6" {
			a.add(Critical, c.text, "shuts down or restarts the machine ("+c.name+" "+w.val+")")
			return
		}
	}
	a.add(High, c.text, "changes the machine's run level ("+c.name+")")
}

func crontab(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "u"})
	switch {
	case p.has("l"):
	case p.has("r"):
		a.add(High, c.text, "deletes your scheduled commands (crontab -r)")
	default:
		a.add(High, c.text, "schedules commands to run later (crontab)")
	}
}

// firewall judges firewall tools: listing is harmless, anything else changes it.
func firewall(a *analyzer, c *call) {
	for _, w := range c.args {
		switch w.val {
		case "-L", "--list", "-S", "--list-rules", "status", "list", "--list-all", "--state", "-n", "-v", "ruleset":
			continue
		}
		a.add(High, c.text, "changes the firewall ("+c.name+")")
		return
	}
}

func mount(a *analyzer, c *call) {
	if len(c.args) == 0 || c.name == "mount" && len(c.args) == 1 && c.args[0].val == "-l" {
		return
	}
	a.add(High, c.text, "mounts or unmounts file systems ("+c.name+")")
}

func hostname(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "F", long: []string{"file"}})
	if len(p.operands) > 0 || p.has("F", "file", "b", "boot") {
		a.add(High, c.text, "changes the machine's name")
		return
	}
	a.checkOptions(c, &opts{short: "aAdfiIsyhV", long: "alias all-fqdns all-ip-addresses domain fqdn long ip-address short yp nis help version"})
}

func date(a *analyzer, c *call) {
	o := opts{short: "uRI", shortArg: "dfrs", long: "utc universal rfc-email debug help version iso-8601 rfc-3339", longArg: "date file reference set resolution"}
	p := a.checkOptions(c, &o)
	if p.has("s", "set") {
		a.add(High, c.text, "sets the system clock")
	}
	if w, ok := flagWord(p, c.args, "f", "file", "r", "reference"); ok {
		a.reads(c.text, w, a.dir)
	}
}

// history: clearing it hides what ran; -a, -n, -r and -w read or write a history file.
func history(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "d"})
	switch {
	case p.has("c", "d"):
		a.add(Medium, c.text, "erases the shell's history")
	case p.has("w", "a"):
		for _, w := range p.operandWords(c.args) {
			a.writes(c.text, w, a.dir, "writes the history to")
		}
		a.add(Medium, c.text, "writes the shell's history to a file")
	case len(p.flags) > 0:
		a.add(Medium, c.text, "changes the shell's history")
	}
}

// fc -s re-runs earlier commands, which the analysis cannot see.
func fc(a *analyzer, c *call) {
	a.add(High, c.text, "runs commands from the shell's history, which parley cannot see")
}

// docker judges container commands by verb.
func docker(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "HcDl", long: []string{"host", "context", "config", "log-level", "tlscacert", "tlscert", "tlskey"}, stopAtOperand: true})
	if w, ok := flagWord(p, c.args, "config"); ok {
		// Its config.json names credential helpers and plugin directories: programs.
		a.add(Medium, c.text, "reads "+c.name+"'s configuration from "+w.src+", which can name programs it runs")
		a.codeFile(w.src)
	}
	if len(p.operands) == 0 {
		a.checkOptions(c, &dockerGlobalOptions)
		return
	}
	rest := c.args[p.operands[0]:]
	verb := rest[0].val
	if verb == "container" || verb == "image" || verb == "system" || verb == "volume" || verb == "network" || verb == "compose" || verb == "builder" {
		if len(rest) > 1 {
			verb += " " + rest[1].val
		}
	}
	all := strings.Join(valuesOf(rest), " ")
	if !dockerQuery(verb) {
		// docker save -o, build --iidfile, run --cidfile…: the files written.
		a.optionEffects(&call{cmd: c.cmd, name: c.name + " " + verb, args: rest[1:], text: c.text}, &dockerWriteOptions)
	}
	switch {
	case strings.HasPrefix(verb, "ps") || verb == "images" || verb == "version" || verb == "info" || verb == "logs" || verb == "inspect" ||
		strings.HasSuffix(verb, " ls") || strings.HasSuffix(verb, " ps") || strings.HasSuffix(verb, " logs") || strings.HasSuffix(verb, " inspect") || verb == "compose config":
		// Queries: their options, and the global ones before the verb (-H reaches
		// another daemon), must be known.
		a.checkOptions(&call{cmd: c.cmd, name: c.name, args: c.args[:p.operands[0]], text: c.text}, &dockerGlobalOptions)
		rest = rest[len(strings.Fields(verb)):]
		a.checkOptions(&call{cmd: c.cmd, name: c.name + " " + verb, args: rest, text: c.text}, &dockerQueryOptions)
	case verb == "push" || strings.HasSuffix(verb, " push"):
		a.add(High, c.text, "publishes an image ("+c.name+" push)")
	case strings.Contains(verb, "prune") || verb == "rmi" || verb == "rm" || strings.HasSuffix(verb, " rm") || verb == "volume rm" || verb == "compose down" && strings.Contains(all, "-v"):
		a.add(High, c.text, "deletes containers, images or volumes ("+c.name+" "+verb+")")
	case verb == "run" || verb == "exec" || verb == "create" || verb == "container run" || verb == "compose up" || verb == "compose run":
		a.containerRun(c, rest[1:])
		if verb == "container run" {
			a.containerRun(c, rest[2:])
		}
		if strings.Contains(all, "--privileged") || strings.Contains(all, "-v /:") || strings.Contains(all, "--volume /:") ||
			strings.Contains(all, "--pid=host") || strings.Contains(all, "--net=host") || strings.Contains(all, "--network=host") ||
			strings.Contains(all, "docker.sock") || strings.Contains(all, "--cap-add") {
			a.add(High, c.text, "runs a container with access to the host ("+c.name+" "+verb+")")
			return
		}
		a.add(Medium, c.text, "runs a container ("+c.name+" "+verb+")")
	default:
		a.add(Medium, c.text, "manages containers ("+c.name+" "+verb+")")
	}
}

// dockerQuery reports whether a docker verb only asks (see dockerQueryOptions).
func dockerQuery(verb string) bool {
	return strings.HasPrefix(verb, "ps") || verb == "images" || verb == "version" || verb == "info" || verb == "logs" || verb == "inspect" ||
		strings.HasSuffix(verb, " ls") || strings.HasSuffix(verb, " ps") || strings.HasSuffix(verb, " logs") || strings.HasSuffix(verb, " inspect") || verb == "compose config"
}

// dockerWriteOptions are the options of docker's other verbs that write a file.
var dockerWriteOptions = opts{writes: "o output iidfile metadata-file cidfile"}

// dockerGlobalOptions are docker's options before the verb known to be harmless
// (--config is judged on its own: it names programs).
var dockerGlobalOptions = opts{short: "D", shortArg: "lc", long: "debug tls tlsverify help version", longArg: "log-level context config",
	reads: "tlscacert tlscert tlskey"}

// dockerQueryOptions are the options of docker's queries (ps, images, logs, inspect,
// the ls of its objects, compose config, whose -o writes the configuration).
var dockerQueryOptions = opts{short: "aqslt", shortArg: "fn",
	long: `all quiet size latest no-trunc digests tree follow timestamps details no-stream human services volumes profiles images
		hash resolve-image-digests no-interpolate no-normalize no-path-resolution no-consistency variables environment help`,
	longArg: "format filter last tail since until type", writes: "o output"}

// containerRun judges docker run's mounts of host directories and the command the
// container runs with them.
func (a *analyzer) containerRun(c *call, args []word) {
	spec := flagSpec{short: "vepwumlhcaEw", long: []string{"volume", "env", "publish", "workdir", "user", "memory", "label", "hostname", "cpu-shares",
		"attach", "env-file", "name", "network", "net", "entrypoint", "mount", "platform", "restart", "cpus", "add-host", "device", "cap-add",
		"cap-drop", "security-opt", "ulimit", "log-driver", "log-opt", "pid", "ipc", "uts", "volumes-from", "tmpfs", "gpus", "runtime",
		"shm-size", "stop-signal", "health-cmd", "health-interval", "pull", "cidfile", "group-add", "dns", "expose", "label-file"}, stopAtOperand: true}
	p := parseArgs(args, spec)
	var mounts []string
	for _, f := range p.flags {
		var host string
		switch {
		case f.name == "v" || f.long && f.name == "volume":
			host, _, _ = strings.Cut(f.value, ":")
		case f.long && f.name == "mount" && strings.Contains(f.value, "bind"):
			for _, kv := range strings.Split(f.value, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok && (k == "source" || k == "src") {
					host = v
				}
			}
		case f.long && f.name == "volumes-from":
			mounts = append(mounts, "another container's volumes")
		}
		if host == "" {
			continue
		}
		if !strings.HasPrefix(host, "/") && !strings.HasPrefix(host, ".") && !strings.HasPrefix(host, "~") && !strings.HasPrefix(host, "$") {
			continue // a named volume
		}
		w := f.valueWord(args)
		w.val, w.prefix = host, strings.SplitN(w.prefix, ":", 2)[0]
		loc := a.locate(w, a.dir)
		if loc.place != placeInside || loc.whole {
			mounts = append(mounts, loc.describe())
		}
	}
	if len(mounts) == 0 || len(p.operands) == 0 {
		return
	}
	a.add(High, c.text, "gives a container "+strings.Join(mounts, ", ")+", where what it runs is out of parley's sight")
	a.containerCommand(c, mounts, args[p.operands[0]+1:])
}

func valuesOf(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.val
	}
	return out
}

// kubectl and its kind: reads are harmless, deletes High, other changes Medium.
func kubectl(a *analyzer, c *call) {
	verb := firstOperand(c.args)
	p := parseArgs(c.args, flagSpec{long: []string{"kubeconfig", "post-renderer"}})
	if w, ok := flagWord(p, c.args, "kubeconfig"); ok {
		// A kubeconfig can name a program that gets the credentials (exec).
		a.add(Medium, c.text, "reads the cluster configuration "+w.src+", which can name a program "+c.name+" runs")
		a.codeFile(w.src)
	}
	if w, ok := flagWord(p, c.args, "post-renderer"); ok {
		a.add(High, c.text, "runs a program on what "+c.name+" renders (--post-renderer)")
		a.shellCode(c, w)
	}
	sub := ""
	if ops := p.operandWords(c.args); len(ops) > 1 {
		sub = ops[1].val
	}
	switch {
	case verb == "config" && c.name != "helm" && sub != "view" && sub != "get-contexts" && sub != "current-context" && sub != "get-clusters" && sub != "get-users":
		// kubectl config set-credentials --exec-command names a program every later
		// kubectl runs; any change rewrites ~/.kube/config.
		a.add(High, c.text, "changes the cluster configuration, which can name programs "+c.name+" runs ("+c.name+" config "+sub+")")
		return
	case verb == "auth" && sub != "can-i" && sub != "whoami":
		a.add(Medium, c.text, "changes cluster resources ("+c.name+" auth "+sub+")")
		return
	}
	switch verb {
	case "", "get", "describe", "logs", "explain", "version", "api-resources", "api-versions", "top", "config", "cluster-info", "diff", "auth", "status", "list", "show", "history", "template", "search", "lint":
		a.checkOptions(c, &kubeQueryOptions)
		return
	}
	// helm pull --untardir, package --destination, any verb's --cache-dir.
	a.optionEffects(c, &opts{writes: "cache-dir output-dir destination untardir repository-cache"})
	switch verb {
	case "delete", "drain", "cordon", "uninstall", "destroy", "taint", "replace", "rollback":
		a.add(High, c.text, "deletes or disrupts cluster resources ("+c.name+" "+verb+")")
	case "exec", "run", "debug", "port-forward", "proxy", "cp", "attach":
		a.add(Medium, c.text, "runs or reaches into a cluster ("+c.name+" "+verb+")")
	default:
		a.add(Medium, c.text, "changes cluster resources ("+c.name+" "+verb+")")
	}
}

// kubeQueryOptions are the options of kubectl's and helm's queries: --cache-dir,
// --output-dir (helm template) and --output-directory (cluster-info dump) write,
// --profile-output writes a profile; files given with -f and --values are read.
var kubeQueryOptions = opts{short: "AwRhqadrkp", shortArg: "nolLcsvm",
	long: `all-namespaces watch watch-only output-watch-events show-labels no-headers show-kind ignore-not-found previous
		timestamps prefix all-containers ignore-errors recursive raw allow-missing-template-keys show-managed-fields help
		insecure-skip-tls-verify namespaced cached client short show-events include-crds skip-crds skip-tests devel is-upgrade
		debug date deployed failed pending superseded uninstalled uninstalling all reverse strict with-subcharts quiet
		plain-http pass-credentials verify match-server-version warnings-as-errors disable-compression follow version-only`,
	longArg: `namespace output selector field-selector sort-by label-columns chunk-size context cluster user server
		request-timeout tail since since-time container limit-bytes max-log-requests pod-running-timeout api-version subresource
		template output-version api-group verbs as as-group token tls-server-name kube-context kubeconfig post-renderer
		post-renderer-args set set-string set-json set-literal version repo show-only release-name name-template api-versions
		kube-version filter max offset time-format revision max-col-width username password profile log-flush-frequency`,
	writes: "cache-dir output-dir output-directory profile-output",
	reads:  "f filename values set-file kustomize keyring ca-file cert-file key-file certificate-authority client-certificate client-key",
}

func terraform(a *analyzer, c *call) {
	verb := firstOperand(c.args)
	switch verb {
	case "version", "-version", "--version", "-help", "--help", "help":
		return
	case "fmt", "init", "get":
		a.add(Medium, c.text, "rewrites files or downloads and installs providers ("+c.name+" "+verb+")")
	case "", "plan", "validate", "show", "output", "providers", "graph", "console":
		// Providers are programs (in .terraform, which the agent can write), and an
		// external data source runs any program during a plan.
		a.add(Medium, c.text, "runs the configuration's providers and external programs ("+c.name+" "+verb+")")
	case "destroy":
		a.add(High, c.text, "destroys infrastructure ("+c.name+" destroy)")
	case "apply", "import", "state", "taint", "force-unlock", "workspace":
		a.add(High, c.text, "changes infrastructure ("+c.name+" "+verb+")")
	default:
		a.add(Medium, c.text, "runs "+c.name+" "+verb)
	}
	a.codeFile("the configuration's providers and external programs")
}

// firstOperand returns the first argument that does not look like an option.
func firstOperand(args []word) string {
	for _, w := range args {
		if !strings.HasPrefix(w.val, "-") {
			return w.val
		}
	}
	return ""
}

// osPackages judges system package managers: queries are harmless, installs and
// removals change the machine.
func osPackages(a *analyzer, c *call) {
	verb := firstOperand(c.args)
	switch {
	case c.name == "pacman" && hasPrefixWord(c.args, "--logfile", "--config", "--hookdir", "--dbpath", "--root", "--cachedir", "--gpgdir", "-b", "-r"):
		if w, ok := flagWord(parseArgs(c.args, flagSpec{long: []string{"logfile"}}), c.args, "logfile"); ok {
			a.writes(c.text, w, a.dir, "writes its log to")
		}
		a.add(Medium, c.text, "points pacman at another configuration, log or database")
		return
	case c.name == "pacman":
		all := strings.Join(valuesOf(c.args), " ")
		if strings.Contains(all, "-R") {
			a.add(High, c.text, "removes system packages (pacman -R)")
		} else if strings.Contains(all, "-S") || strings.Contains(all, "-U") {
			a.add(High, c.text, "installs system packages (pacman)")
		} else {
			a.queryWords(c, "-", "QVTh", "Qiqlsedtmkgnpoc", pacmanQueryWords())
		}
		return
	case c.name == "rpm" && hasPrefixWord(c.args, "-E", "--eval", "-D", "--define", "--macros", "--rcfile", "--load", "--pipe", "--dbpath", "--root"):
		// Macros run shell commands (%(…)); --pipe runs one on the output.
		a.add(High, c.text, "gives rpm macros or a program, which can run commands (rpm --eval, --define, --pipe…)")
		return
	case c.name == "dpkg" && hasPrefixWord(c.args, "--log", "--admindir", "--instdir", "--root"):
		if w, ok := flagWord(parseArgs(c.args, flagSpec{long: []string{"log"}}), c.args, "log"); ok {
			a.writes(c.text, w, a.dir, "writes its log to")
		}
		a.add(Medium, c.text, "points dpkg at another log or database")
		return
	case c.name == "dpkg" || c.name == "rpm":
		all := strings.Join(valuesOf(c.args), " ")
		if strings.Contains(all, "-i") || strings.Contains(all, "-r") || strings.Contains(all, "-P") || strings.Contains(all, "-e") || strings.Contains(all, "-U") {
			a.add(High, c.text, "installs or removes system packages ("+c.name+")")
			return
		}
		if c.name == "rpm" {
			a.queryWords(c, "-", "qV", "qailfpRcdsV", rpmQueryWords())
		} else {
			a.queryWords(c, "-", "lLsSpcIfC", "", dpkgQueryWords())
		}
		return
	}
	switch verb {
	case "", "search", "show", "info", "list", "policy", "madison", "depends", "rdepends", "list-installed", "--version", "help", "query", "provides", "whatprovides", "outdated", "leaves", "deps", "uses", "desc", "doctor", "config":
		// apt's -o and -c set any configuration (hooks among it): not listed.
		a.checkOptions(c, &osQueryOptions)
	case "home":
		a.add(Medium, c.text, "opens a web browser ("+c.name+" home)")
	case "remove", "purge", "autoremove", "uninstall", "erase", "del", "rm", "reinstall", "zap", "untap":
		a.add(High, c.text, "removes system packages ("+c.name+" "+verb+")")
	case "update", "check":
		a.add(Medium, c.text, "updates the package lists ("+c.name+" "+verb+")")
	default:
		a.add(High, c.text, "installs or changes system packages ("+c.name+" "+verb+")")
	}
}

// osQueryOptions are the options of the system package managers' queries.
var osQueryOptions = opts{short: "aqvhVnfiCl1", long: `installed upgradable all-versions names-only full recurse important no-pager quiet verbose
	json versions formula formulae cask casks pinned full-name installed-on-request cacheonly available upgrades all help version
	no-all-versions manual-installed`, longArg: "json"}

// The options of pacman's, rpm's and dpkg's queries known to be harmless.
var (
	pacmanQueryWords = sync.OnceValue(func() map[string]bool {
		return wordSet(`--query --info --list --search --owns --explicit --deps --unrequired --foreign --native --quiet
		--check --groups --changelog --upgrades --file --color --help --version --deptest --noconfirm`)
	})
	rpmQueryWords = sync.OnceValue(func() map[string]bool {
		return wordSet(`--query --all --info --list --file --package --requires --provides --whatprovides --whatrequires
		--qf --queryformat --changelog --scripts --triggers --last --state --dump --conflicts --obsoletes --verify --version
		--help --showrc --configfiles --docfiles --nosignature --nodigest --quiet`)
	})
	dpkgQueryWords = sync.OnceValue(func() map[string]bool {
		return wordSet(`--list --listfiles --status --search --print-avail --print-architecture --print-foreign-architectures
		--get-selections --contents --info --field --help --version --audit --verify --compare-versions --no-pager`)
	})
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// queryWords adds a Medium finding for each option of c that is not a known long one
// (known) nor a cluster that starts with one of first and goes on with letters of
// rest (pacman -Qqe, rpm -qa).
func (a *analyzer) queryWords(c *call, dash, first, rest string, known map[string]bool) {
	for _, w := range c.args {
		if !w.lit {
			if w.canBeFlag() {
				a.add(Medium, c.text, "gives "+c.name+" words only known when it runs, which may be options")
			}
			continue
		}
		v := w.val
		if !strings.HasPrefix(v, dash) || v == "-" {
			continue
		}
		name, _, _ := strings.Cut(v, "=")
		if known[name] {
			continue
		}
		if !strings.HasPrefix(v, "--") && len(v) > 1 && strings.IndexByte(first, v[1]) >= 0 && strings.Trim(v[2:], rest) == "" {
			continue
		}
		a.add(Medium, c.text, "gives "+c.name+" the option "+name+", which parley does not know to be harmless")
	}
}

// hasPrefixWord reports whether an argument is one of options, alone or with =value.
func hasPrefixWord(args []word, options ...string) bool {
	for _, w := range args {
		for _, o := range options {
			if w.val == o || strings.HasPrefix(w.val, o+"=") || len(o) == 2 && o[1] != '-' && strings.HasPrefix(w.val, o) && !strings.HasPrefix(w.val, "--") {
				return true
			}
		}
	}
	return false
}

// network judges programs whose job is to reach another machine: Medium, like any
// network access (their arguments can carry data out: dig $(cat .env).example.com).
func network(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	a.add(Medium, c.text, "reaches the network ("+c.name+")")
}

// ipProgram judges ip: showing is harmless, anything else changes the network.
func ipProgram(a *analyzer, c *call) {
	var words []string
	for i := 0; i < len(c.args); i++ {
		w := c.args[i]
		if !strings.HasPrefix(w.val, "-") {
			words = append(words, w.val)
			continue
		}
		switch w.val {
		case "-s", "-stats", "-statistics", "-d", "-details", "-h", "-human", "-human-readable", "-4", "-6", "-0", "-o", "-oneline",
			"-r", "-resolve", "-j", "-json", "-p", "-pretty", "-c", "-color", "-br", "-brief", "-t", "-timestamp", "-ts", "-a", "-all",
			"-V", "-Version", "-help":
		case "-f", "-family", "-n", "-netns", "-l", "-loops":
			i++ // their value
		default:
			// -batch runs the commands of a file; -force goes on after errors.
			a.add(Medium, c.text, "gives ip the option "+w.val+", which parley does not know to be harmless")
		}
	}
	if len(words) <= 1 {
		return
	}
	switch words[1] {
	case "show", "list", "ls", "lst", "get", "s", "l":
		return
	}
	a.add(High, c.text, "changes the network configuration (ip "+strings.Join(words[:2], " ")+")")
}

func ifconfig(a *analyzer, c *call) {
	p := a.checkOptions(c, &opts{short: "asvlL", long: "help version"})
	if len(p.operands) > 1 {
		a.add(High, c.text, "changes a network interface (ifconfig)")
	}
}

// topProgram: top in batch mode only prints; interactive top can signal processes.
func topProgram(a *analyzer, c *call) {
	if !hasWord(c.args, "-b") && !hasClusterLetter(c.args, 'b') {
		a.add(Medium, c.text, "starts top, which can signal processes")
		return
	}
	a.checkOptions(c, &opts{short: "bHicSs1hv", shortArg: "ndpuUoOwEe"})
}
