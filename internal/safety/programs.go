package safety

import (
	"strings"
	"sync"
)

// judge adds a program's findings for one call.
type judge func(a *analyzer, c *call)

// programTable maps a program's name (see programName) to its judge. A program that
// is not here is Medium ("a program parley does not know"), except a language runtime
// (see interpreterFor).
var (
	programTable     map[string]judge
	programTableOnce sync.Once
)

// programs returns programTable, made on first use.
func programs() map[string]judge {
	programTableOnce.Do(func() {
		programTable = map[string]judge{
			// Files.
			"rm": rm, "unlink": rmdir, "rmdir": rmdir, "shred": shred, "srm": shred, "wipe": shred,
			"mv": copyMove, "cp": copyMove, "ln": copyMove, "install": copyMove,
			"touch": touchMkdir, "mkdir": touchMkdir, "mkfifo": touchMkdir, "mktemp": mktemp,
			"chmod": chmod, "chown": chown, "chgrp": chown, "chattr": fixed(High, "changes file attributes (chattr)"),
			"setfacl": fixed(Medium, "changes file access lists (setfacl)"),
			"dd":      dd, "tee": tee, "truncate": truncate, "sed": sed, "gsed": sed, "awk": awk, "gawk": awk, "mawk": awk, "nawk": awk,
			"tar": archive, "bsdtar": archive, "gtar": archive, "unzip": archive, "zip": archive, "gzip": archive, "gunzip": archive,
			"bzip2": archive, "bunzip2": archive, "xz": archive, "unxz": archive, "7z": archive, "zstd": archive,
			"sort": sortProgram, "find": find, "fd": fd, "fdfind": fd,
			"cd": cd, "pushd": cd, "popd": func(a *analyzer, _ *call) { a.dir = "" },
			// Disks, the machine, processes.
			"mkfs": fixed(Critical, "formats a disk (mkfs)"), "mke2fs": fixed(Critical, "formats a disk (mke2fs)"),
			"mkswap": fixed(Critical, "formats a disk as swap (mkswap)"), "wipefs": fixed(Critical, "erases disk signatures (wipefs)"),
			"fdisk": fixed(Critical, "partitions a disk (fdisk)"), "sfdisk": fixed(Critical, "partitions a disk (sfdisk)"),
			"cfdisk": fixed(Critical, "partitions a disk (cfdisk)"), "gdisk": fixed(Critical, "partitions a disk (gdisk)"),
			"sgdisk": fixed(Critical, "partitions a disk (sgdisk)"), "parted": fixed(Critical, "partitions a disk (parted)"),
			"blkdiscard": fixed(Critical, "erases a disk (blkdiscard)"), "hdparm": fixed(Critical, "changes disk settings (hdparm)"),
			"shutdown": fixed(Critical, "shuts down or restarts the machine"), "reboot": fixed(Critical, "restarts the machine"),
			"halt": fixed(Critical, "stops the machine"), "poweroff": fixed(Critical, "turns the machine off"),
			"init": initProgram, "telinit": initProgram, "systemctl": systemctl, "service": service, "rc-service": service,
			"launchctl": fixed(High, "changes services (launchctl)"),
			"kill":      kill, "pkill": killByName, "killall": killByName, "killall5": killByName, "skill": killByName, "slay": killByName,
			"xkill":    killByName,
			"crontab":  crontab,
			"iptables": firewall, "ip6tables": firewall, "nft": firewall, "ufw": firewall, "firewall-cmd": firewall, "pfctl": firewall,
			"mount": mount, "umount": mount, "swapoff": fixed(High, "turns swap off (swapoff)"), "swapon": fixed(Medium, "turns swap on"),
			"sysctl": func(a *analyzer, c *call) {
				if hasWord(c.args, "-w", "--write", "-p", "-f", "--load", "--system") || hasPrefixWord(c.args, "--load", "-p", "-f") {
					a.add(High, c.text, "changes kernel settings (sysctl)")
					return
				}
				a.checkOptions(c, &opts{short: "aAbeNnqXdhV", shortArg: "r", long: "all binary ignore names values quiet deprecated help version", longArg: "pattern"})
			},
			"modprobe": fixed(High, "loads or unloads kernel modules"), "insmod": fixed(High, "loads a kernel module"),
			"rmmod":   fixed(High, "unloads a kernel module"),
			"useradd": fixed(High, "changes user accounts"), "userdel": fixed(High, "deletes a user account"),
			"usermod": fixed(High, "changes user accounts"), "groupadd": fixed(High, "changes groups"), "groupdel": fixed(High, "deletes a group"),
			"passwd": fixed(High, "changes a password"), "chpasswd": fixed(High, "changes passwords"), "visudo": fixed(High, "changes who may use sudo"),
			"chsh": fixed(High, "changes a login shell"), "chroot": fixed(High, "runs a command in another root directory (chroot)"),
			"hostname": hostname, "date": date, "timedatectl": fixed(Medium, "changes the clock settings"),
			"history": history, "fc": fc,
			// Shells and code.
			"su": su, "eval": eval, "source": source, ".": source, "trap": trap,
			// Network.
			"curl": curl, "wget": wget, "fetch": fixed(Medium, "fetches from the network (fetch)"),
			"aria2c": fixed(Medium, "fetches from the network (aria2c)"), "http": fixed(Medium, "fetches from the network (http)"),
			"https": fixed(Medium, "fetches from the network (https)"), "xh": fixed(Medium, "fetches from the network (xh)"),
			"nc": netcat, "ncat": netcat, "netcat": netcat, "socat": netcat, "telnet": fixed(Medium, "opens a network connection (telnet)"),
			"ftp": fixed(Medium, "opens a network connection (ftp)"), "tftp": fixed(Medium, "opens a network connection (tftp)"),
			"ssh": ssh, "scp": remoteCopy, "sftp": remoteCopy, "rsync": remoteCopy,
			// Version control.
			"git": git,
			// Builds.
			"make": makeProgram, "gmake": makeProgram, "cmake": cmake,
			// Programs that write through an option, or run code they are given.
			"iconv": iconv, "openssl": openssl, "dos2unix": dos2unix, "unix2dos": dos2unix, "yq": yq, "tree": tree, "dc": dc, "man": man,
			"gpg": fixed(Medium, "changes the keyring or writes files (gpg)"), "gpg2": fixed(Medium, "changes the keyring or writes files (gpg)"),
			"ping": network, "dig": network, "nslookup": network, "host": network, "traceroute": network, "tracepath": network,
			"whois": network, "mtr": network, "tldr": network, "ip": ipProgram, "ifconfig": ifconfig, "netstat": plainProgram, "ss": plainProgram,
			"pipenv": envRunner, "pdm": envRunner, "rye": envRunner, "conda": envRunner, "mamba": envRunner, "micromamba": envRunner, "pixi": envRunner,
			"tmux": tmux, "screen": screen, "at": atProgram, "batch": atProgram,
			"fzf":  fixed(Medium, "runs commands bound to its keys or its preview (fzf)"),
			"htop": fixed(Medium, "can signal processes (htop)"), "top": topProgram,
			// Packages and publishing.
			"npm": nodePackages, "pnpm": nodePackages, "yarn": nodePackages, "bun": bunProgram,
			"npx": npx, "pnpx": npx, "bunx": npx, "uvx": npx, "pipx": npx,
			"pip": pip, "pip3": pip, "uv": uv, "cargo": cargo, "go": goTool,
			"twine": publisher("upload", "register"), "gem": publisher("push", "yank", "owner"),
			"poetry": publisher("publish"), "flit": publisher("publish"), "hatch": publisher("publish"),
			"dotnet": publisher(), "mvn": publisher(), "mvnw": publisher(), "gradle": publisher("publish"), "gradlew": publisher("publish"),
			"helm": kubectl, "kubectl": kubectl, "oc": kubectl, "terraform": terraform, "tofu": terraform, "pulumi": terraform,
			"docker": docker, "podman": docker, "nerdctl": docker,
			"apt": osPackages, "apt-get": osPackages, "aptitude": osPackages, "yum": osPackages, "dnf": osPackages,
			"zypper": osPackages, "apk": osPackages, "brew": osPackages, "port": osPackages, "snap": osPackages,
			"flatpak": osPackages, "pacman": osPackages, "dpkg": osPackages, "rpm": osPackages, "nix-env": osPackages,
			// Formatters rewrite files when told to.
			"gofmt": formatter("w", "l d e s r"), "goimports": formatter("w", "l d e local"), "rustfmt": formatter("", "check edition"),
			"clang-format": formatter("i", "style dry-run n Werror"), "black": formatter("", "check diff quiet q"), "isort": formatter("", "check-only check diff"),
			"ruff": formatter("fix", "no-fix"), "autopep8": formatter("i", "diff d"), "shfmt": formatter("w", "l d i s"),
		}
		for _, name := range shellNames {
			programTable[name] = shell
		}
		for name := range plainTable() {
			if _, ok := programTable[name]; !ok {
				programTable[name] = plainProgram
			}
		}
		for name, what := range projectCode() {
			programTable[name] = runsProjectCode(what)
		}
		for _, name := range compilers {
			programTable[name] = compiler
		}
		for name := range interpreters() {
			programTable[name] = runInterpreter
		}
		programTable["nodejs"] = runInterpreter
		programTable["powershell"] = runInterpreter
		builtinTable = builtins()
		for name, j := range builtinTable {
			programTable[name] = j
		}
		programTable["alias"] = alias
	})
	return programTable
}

// bunProgram is both a package manager and a runtime.
func bunProgram(a *analyzer, c *call) {
	switch firstOperand(c.args) {
	case "", "install", "i", "add", "remove", "rm", "update", "publish", "link", "unlink", "pm", "x", "create", "init":
		nodePackages(a, c)
	default:
		runInterpreter(a, c)
	}
}

// formatter judges a formatter: with its write option (or, when write is "", always)
// it rewrites files in the workspace, which is Medium; without it, it only reads (its
// other options must be known: checkFlags lists the read-only ones).
func formatter(write string, checkFlags string) judge {
	return func(a *analyzer, c *call) {
		if versionQuery(c.args) {
			return
		}
		a.formatterWrites(c)
		p := parseArgs(c.args, flagSpec{})
		readOnly := write != "" && !p.has(write) && !(c.name == "ruff" && firstOperand(c.args) == "format")
		if write == "" && checkFlags != "" {
			for _, f := range strings.Fields(checkFlags) {
				if p.has(f) {
					readOnly = true
				}
			}
		}
		if c.name == "ruff" && !p.has("no-fix") {
			readOnly = false // ruff check fixes what its configuration says to
		}
		if readOnly {
			for _, f := range p.flags {
				if !strings.Contains(" "+checkFlags+" ", " "+f.name+" ") {
					a.add(Medium, c.text, "gives "+c.name+" an option parley does not know to be harmless ("+f.name+")")
				}
			}
			for _, w := range p.operandWords(c.args) {
				a.reads(c.text, w, a.dir)
			}
			return
		}
		for _, w := range p.operandWords(c.args) {
			if loc := a.locate(w, a.dir); loc.outside() && w.val != "check" && w.val != "format" {
				a.add(High, c.text, "rewrites "+loc.describe())
				return
			}
		}
		a.add(Medium, c.text, "rewrites files in the workspace ("+c.name+")")
	}
}

// formatterWrites judges the files a formatter writes besides the ones it formats:
// ruff's report and cache, the profiles of the Go formatters (Go flags: -cpuprofile=x
// or -cpuprofile x).
func (a *analyzer) formatterWrites(c *call) {
	switch c.name {
	case "ruff":
		a.optionEffects(c, &opts{writes: "o output-file cache-dir"})
	case "gofmt", "goimports":
		for i := 0; i < len(c.args); i++ {
			w := c.args[i]
			name, value, has := strings.Cut(strings.TrimLeft(w.val, "-"), "=")
			if !w.lit || !strings.HasPrefix(w.val, "-") || name != "cpuprofile" && name != "memprofile" && name != "trace" {
				continue
			}
			file := literalWord(value)
			if !has {
				if i+1 >= len(c.args) {
					break
				}
				i++
				file = c.args[i]
			}
			a.writes(c.text, file, a.dir, "writes (-"+name+") to")
		}
	}
}
