package safety

import (
	"strings"
	"testing"
)

// Issue 26, class 7: an option of a program on the harmless lists that writes a file
// (a log, a report, a cache, an output) is judged like a redirection to that file, an
// option that runs a program or reads settings that name one is not harmless, and an
// option parley does not know is never None. Each row would be None if the option
// were not judged.
func TestOptionWrites(t *testing.T) {
	for _, c := range []struct {
		command string
		tier    Tier
	}{
		// pip's queries.
		{"pip list --log=.github/workflows/x.yml", High},
		{"pip list --log .github/workflows/x.yml", High},
		{"pip list --lo .bashrc", High}, // an abbreviation of --log
		{"pip freeze --log-file ../x", High},
		{"pip show --cache-dir=/etc/x requests", High},
		{"pip list --log build.log", Medium},
		{"pip list --python /usr/bin/python3", High},
		{"pip list --outdated", Medium},
		{"pip list --no-such-option", Medium},
		{"uv pip list --cache-dir /etc/x", High},
		{"pip install --log .bashrc requests", High},
		// npm and its kind.
		{"npm ls --logs-dir=.github/workflows", High},
		{"npm --logs-dir=.git/hooks", High},
		{"npm ls --cache /etc/npm", High},
		{"npm ls --no-such-option", Medium},
		{"npm config get prefix --userconfig ./rc", Medium},
		{"npm help --browser 'rm -rf ~' install", Critical},
		{"npm test --logs-dir=.bashrc", High},
		// cargo and go.
		{"cargo help --no-such-option", Medium},
		{"cargo build --target-dir=/etc/x", High},
		{"go build -pkgdir /etc/x ./...", High},
		{"go build -modfile=.github/workflows/x.mod ./...", High},
		{"go build -gcflags=-cpuprofile=.bashrc ./...", High},
		{"go build -ldflags '-tmpdir /etc/x' ./...", High},
		{"go build -mod=mod ./...", High}, // go.mod and go.sum are sensitive
		{"go build -overlay /etc/o.json ./...", Medium},
		{"gofmt -l -cpuprofile=.bashrc .", High},
		// git.
		{"git log --output=.bashrc", High},
		{"git log --outp .bashrc", High},
		{"git diff --output=.github/workflows/x.yml", High},
		{"git stash list --output=.bashrc", High},
		{"git stash show --output=.git/hooks/pre-commit", High},
		{"git reflog --output=.bashrc", High},
		{"git tag -l --output=.bashrc", High},
		{"git branch --list --no-such-option", Medium},
		{"git archive --outp .bashrc HEAD", High},
		{"git archive --no-such-option HEAD", Medium},
		{"git config --file /etc/x --get user.name", Medium},
		{"git config --list --no-such-option", Medium},
		{"git gc", Medium},
		{"git remote show origin", Medium},
		// Readers and listings.
		{"sort -o .github/workflows/x.yml a.txt", High},
		{"sort --outp .bashrc a.txt", High},
		{"sort -T /etc a.txt", High},
		{"sort --compress-program=gzip a.txt", High},
		{"tree -o .github/workflows/x.yml", High},
		{"diffstat -o .bashrc a.patch", High},
		{"iconv -f utf8 -t utf8 --output=../x a.txt", High},
		{"rg --pre ./x.sh foo", High},
		{"rg --pre 'rm -rf ~' foo", Critical},
		{"ag --pager 'rm -rf ~' foo", Critical},
		{"hexdump -f /etc/fmt a.bin", Medium},
		{"xargs -a /etc/list", Medium},
		{"pgrep -F /etc/pid", Medium},
		{"jq -L /etc -n 1", Medium},
		{"shellcheck --rcfile /etc/rc x.sh", Medium},
		{"fd --no-such-option x", Medium},
		{"fd foo /etc", Medium},
		{"top -b --no-such-option", Medium},
		{"man -C ./man.conf ls", Medium},
		// Downloads and formatters write more than their output.
		{"curl --hsts .bashrc https://example.com", High},
		{"curl -w '%output{.bashrc}%{http_code}' https://example.com", High},
		{"curl --libcurl .github/workflows/x.yml https://example.com", High},
		{"wget -o .bashrc https://example.com", High},
		{"wget --use-askpass='rm -rf ~' https://example.com", Critical},
		{"openssl rand -writerand .bashrc 16", High},
		{"ruff check --no-fix --output-file .github/workflows/x.yml", High},
		// Services, containers, clusters, packages.
		{"systemctl status --no-such-option", Medium},
		{"systemctl status -H remote nginx", Medium},
		{"docker ps --no-such-option", Medium},
		{"docker -H ssh://x ps", Medium},
		{"docker compose config -o .github/workflows/x.yml", High},
		{"kubectl get pods --no-such-option", Medium},
		{"kubectl get pods --cache-dir=/etc/x", High},
		{"kubectl config set-credentials x --exec-command='rm -rf ~'", High},
		{"kubectl auth reconcile -f x.yaml", Medium},
		{"kubectl cluster-info dump --output-directory=.github/workflows", High},
		{"helm template x . --output-dir=/etc/x", High},
		{"apt list -o Dir::Etc=x", Medium},
		{"rpm -E '%(rm -rf ~)'", High},
		{"dpkg --log=.bashrc -l", High},
		{"pacman -Qi --logfile=.bashrc", High},
		{"sysctl -f x.conf", High},
		{"conda list --no-such-option", Medium},
		{"gem build x.gemspec", Medium},
		{"gem open rails", Medium},
		{"poetry version 2.0", Medium},
		{"flit build", Medium},
		{"uv tree", Medium},
		{"uv tree --frozen --cache-dir /etc/x", High},
		{"uv sync --cache-dir .bashrc", High},
		{"brew home", Medium},
		// Programs already Medium for what they do still have the file they write judged.
		{"pytest --basetemp=/home/u", Critical}, // pytest empties it first
		{"pytest --junitxml=.github/workflows/x.xml", High},
		{"jest --outputFile=.bashrc", High},
		{"eslint -o .bashrc .", High},
		{"gcc -MF .bashrc -c x.c", High},
		{"gcc -Wl,-Map=.bashrc x.c", High},
		{"rustc --emit=obj=.bashrc x.rs", High},
		{"javac -d /etc x.java", High},
		{"tsc --noEmit --outDir .github/workflows", High},
		{"tsc --noEmit --tsBuildInfoFile .bashrc", High},
		{"pip download -d ../x requests", High},
		{"pip install --report .bashrc requests", High},
		{"docker save -o .bashrc img", High},
		{"docker build --iidfile /etc/x .", High},
		{"helm pull x --untardir /etc/x", High},
		{"kubectl apply -f x.yaml --cache-dir /etc/x", High},
		{"gawk --profile=.bashrc '{print}' a.txt", High},
		{"gawk --profile '{system(\"rm -rf ~\")}' a.txt", Critical},
		{"tar -tf host:x.tar", Medium},
		// Options parley does not know are never None, whatever the judge.
		{"touch --no-such-option x", Medium},
		{"sysctl --no-such-option", Medium},
		{"ip -batch cmds.txt", Medium},
		{"ifconfig --no-such-option", Medium},
		{"hostname --no-such-option", Medium},
		{"docker --no-such-option", Medium},
		{"go --no-such-option", Medium},
		{"git config --no-such-option", Medium},
		{"pacman -Q --no-such-option", Medium},
		{"rpm -qa --no-such-option", Medium},
		{"dpkg -l --no-such-option", Medium},
		{"openssl list -provider ./p.so", High},
		{"openssl x509 -in a.pem -no-such-option", Medium},
		{"openssl ts -reply -in r.tsr -token_out .bashrc", High},
		{"openssl s_client -connect example.com:443 -keylogfile .bashrc", High},
	} {
		if a := Analyze(c.command, tableContext); a.Tier != c.tier {
			t.Errorf("%q is %s (%s), want %s", c.command, a.Tier, a.Reason(), c.tier)
		}
	}
}

// The same programs with their harmless options stay None.
func TestOptionWritesLeaveQueriesHarmless(t *testing.T) {
	for _, command := range []string{
		"pip list", "pip list --format=json", "pip show -f requests", "pip freeze -r requirements.txt", "pip --version",
		"npm ls", "npm ls --all --json", "pnpm ls --depth 2", "npm why react", "cargo --version", "cargo help build",
		"go build ./...", "go vet ./...", "go build -gcflags='all=-N -l' ./...", "go build -ldflags '-s -w -X main.v=1' ./...",
		"go doc -all fmt", "git log --oneline", "git diff --output-indicator-new=+", "git stash list", "git branch -a -v",
		"git tag -l 'v*'", "git remote -v", "git config --get user.name", "git archive HEAD", "sort -n a.txt", "tree -L 2",
		"systemctl status nginx --no-pager -n 50", "docker ps -a --format '{{.Names}}'", "docker logs -f --tail 10 web",
		"kubectl get pods -o yaml -n x", "helm list -A", "apt list --installed", "brew list --versions", "conda list --json",
		"gem list", "poetry show --tree", "uv --version", "uv tree --frozen", "fd -e go", "top -b -n 1", "man ls",
		"ruff check --no-fix", "gofmt -l .", "touch a.txt", "mkdir -p a/b", "sysctl -a", "ip -br addr", "hostname -f",
		"pacman -Qqe", "rpm -qa", "dpkg -l", "openssl version -a", "openssl x509 -in a.pem -noout -text", "openssl dgst -sha256 a.txt", "openssl rand -hex 16",
	} {
		if a := Analyze(command, tableContext); a.Tier != None {
			t.Errorf("%q is %s (%s), want none", command, a.Tier, a.Reason())
		}
	}
}

// A write through an option gets at least the tier of a redirection to the same file:
// a plain file inside the workspace, a sensitive one, one outside, a system file.
func TestOptionWritesAreJudgedLikeRedirections(t *testing.T) {
	commands := []string{
		"pip list --log={}", "pip --log {} freeze", "uv pip list --cache-dir {}", "npm ls --logs-dir={}", "pnpm ls --store-dir {}",
		"cargo build --target-dir={}", "go build -o {} .", "go build -pkgdir {} ./...", "go vet -gcflags=all=-cpuprofile={} ./...",
		"git log --output={}", "git diff --output {}", "git show --outp={}", "git stash list --output={}", "git archive -o {} HEAD",
		"sort -o {} a.txt", "sort --output={} a.txt", "tree -o {}", "diffstat -o {} a.patch", "iconv -f a -t b -o {} a.txt",
		"find . -fprint {}", "curl --hsts {} https://example.com", "wget -a {} https://example.com", "openssl rand -writerand {} 8",
		"docker compose config --output {}", "docker save -o {} img", "pytest --junitxml={}", "gcc -MF {} -c x.c", "tsc --noEmit --outDir {}", "kubectl get pods --cache-dir {}", "helm template x . --output-dir {}",
		"dpkg --log={} -l", "pacman -Q --logfile={}", "ruff check --no-fix -o {}", "gofmt -l -cpuprofile {} .", "uv sync --cache-dir {}",
	}
	for _, path := range []string{"build.log", ".github/workflows/x.yml", ".bashrc", "../outside", "/etc/passwd"} {
		redirect := Analyze("true > "+path, tableContext).Tier
		for _, command := range commands {
			line := strings.ReplaceAll(command, "{}", path)
			if a := Analyze(line, tableContext); a.Tier < redirect {
				t.Errorf("%q is %s (%s), below %s for a redirection to %s", line, a.Tier, a.Reason(), redirect, path)
			}
		}
	}
}
