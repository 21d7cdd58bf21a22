package safety

import (
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/lazy"
)

// Programs that write files through an option or an operand: the files they write are
// judged like redirections (a sensitive file is High, a file outside the workspace High,
// a device Critical).

// iconv judges iconv: -o writes its output.
func iconv(a *analyzer, c *call) {
	o := opts{globSafe: false, short: "cls", shortArg: "ft", long: "list silent help version", longArg: "from-code to-code", writes: "o output"}
	p := a.checkOptions(c, &o)
	for _, w := range p.operandWords(c.args) {
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// openssl judges openssl: its subcommand, the files it reads (-in, -key…) and writes
// (-out, -keyout…); -engine and -provider load code; the network subcommands reach out.
func openssl(a *analyzer, c *call) {
	if len(c.args) == 0 {
		a.add(Medium, c.text, "starts openssl's interactive prompt")
		return
	}
	sub := c.args[0]
	if !sub.lit {
		a.add(High, c.text, "runs an openssl command only known when it runs")
		return
	}
	switch sub.val {
	case "version", "help", "list", "-help", "--help", "-version", "--version":
		for _, w := range c.args[1:] {
			if name := strings.TrimLeft(w.val, "-"); name == "provider" || name == "provider-path" || name == "engine" || name == "config" || !w.lit {
				a.add(High, c.text, "makes openssl load code or a configuration that can load it ("+w.src+")")
			}
		}
		return
	case "s_client", "s_server", "s_time", "ocsp", "srp":
		a.add(Medium, c.text, "opens a network connection (openssl "+sub.val+")")
	case "x509", "req", "dgst", "rand", "enc", "base64", "asn1parse", "verify", "crl", "pkey", "pkeyutl", "rsa", "ec", "ecparam",
		"genrsa", "genpkey", "dhparam", "pkcs12", "pkcs7", "pkcs8", "cms", "smime", "sha1", "sha256", "sha512", "md5", "passwd", "prime",
		"kdf", "mac", "storeutl", "crl2pkcs7", "nseq", "sess_id", "spkac", "ts", "rsautl", "dsa", "dsaparam", "gendsa", "errstr", "speed":
	default:
		a.add(Medium, c.text, "runs openssl "+sub.val)
	}
	for i := 1; i < len(c.args); i++ {
		w := c.args[i]
		if !w.lit || !strings.HasPrefix(w.val, "-") {
			continue
		}
		name := strings.TrimLeft(w.val, "-")
		value := word{}
		if i+1 < len(c.args) {
			value = c.args[i+1]
		}
		switch name {
		case "out", "keyout", "signature", "certout", "reqout", "CAserial", "export", "writerand", "sess_out", "keylogfile", "msgfile",
			"respout", "crlout", "certsout", "cacertsout", "extracertsout", "outdir", "signer", "out_trusted", "token_out":
			a.writes(c.text, value, a.dir, "writes to")
			i++
		case "in", "inkey", "key", "cert", "CAfile", "CAkey", "CA", "signkey", "certfile", "untrusted", "peerkey", "kfile", "sigfile", "rand":
			a.reads(c.text, value, a.dir)
			i++
		case "engine", "provider", "provider-path", "keyform", "config", "pre", "post":
			if name == "keyform" {
				i++
				continue
			}
			a.add(High, c.text, "makes openssl load code or a configuration that can load it (-"+name+")")
			i++
		default:
			if !opensslHarmless()[name] && !opensslAlgorithm().MatchString(name) {
				a.add(Medium, c.text, "gives openssl the option -"+name+", which parley does not know to be harmless")
			}
		}
	}
}

// opensslHarmless are the options of openssl's subcommands known to write nothing and
// load nothing (the files they read and write are judged above); opensslAlgorithm
// matches the names of ciphers and digests given as options (-aes-256-cbc, -sha256).
var opensslHarmless = sync.OnceValue(func() map[string]bool {
	return wordSet(`noout text pubin pubout inform outform certform CAform CAkeyform passin passout pass nodes noenc
	new newkey x509 x509v1 days subj set_serial serial extfile extensions ext reqexts copy_extensions addext sigopt vfyopt pkeyopt
	nameopt certopt fingerprint subject issuer dates enddate startdate hash subject_hash issuer_hash subject_hash_old
	issuer_hash_old email purpose alias modulus ocspid ocsp_uri pubkey checkend checkhost checkemail checkip req CAcreateserial
	clrtrust clrreject addtrust addreject setalias trustout next_serial preserve_dates utf8 multivalue-rdn batch verbose quiet
	noprompt precert newhdr md hex binary r c d e a A base64 k K iv S salt nosalt p P pbkdf2 iter list ciphers none z bufsize
	nopad debug v hmac mac macopt keylen kdf kdfopt sign verify prverify encrypt decrypt derive rev hexdump oaep pkcs raw x931 3
	F4 f4 primes bits generate safe checks print print_certs nocrl info nokeys nocerts clcerts cacerts chain partial_chain
	crl_check crl_check_all x509_strict verify_hostname verify_email verify_ip verify_depth verify_name show_chain noverify
	policy policy_check explicit_policy inhibit_any inhibit_map allow_proxy_certs attime ignore_critical issuer_checks legacy
	macalg keypbe certpbe nomaciter noiter nomac keyex keysig descert name caname password twopass cipher genparam param_out
	param_enc conv_form check list_curves no_seed dsaparam 2 5 C strparse offset length i dump dlimit oid genstr strictpem
	item lastupdate nextupdate crlnumber badsig topk8 traditional v1 v2 v2prf scrypt scrypt_N scrypt_r scrypt_p nocrypt embed
	noattr stream indef noindef resign receipt_request_print 1 6 apr1 aixmd5 stdin table reverse elapsed evp multi seconds
	bytes mr aead mlock testmode digest size certs keys crls xoflen fips-fingerprint query reply data tspolicy no_nonce
	token_in queryfile section help version outform_der pubcheck param_check check_pub text_pub trusted CApath noCApath noCAfile
	no-CAfile no-CApath no-CAstore CAstore ext_type propquery n cert_only pkeyopt_passin keyform_in cmp_no_dups 4`)
})

var opensslAlgorithm = lazy.Regexp(`^(aes|des|camellia|aria|chacha|sm4|bf|cast|rc2|rc4|rc5|idea|seed|id-aes|sha|md|sm3|blake|shake|ripemd|whirlpool|mdc2|rmd|ssl3|sha3)[-0-9a-z]*$`)

// dos2unix judges dos2unix and unix2dos: they rewrite their files in place, or write
// the second of each pair with -n.
func dos2unix(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "cfm", long: []string{"convmode", "add-bom"}})
	operands := p.operandWords(c.args)
	if p.has("i", "info", "h", "help", "V", "version", "l", "license") {
		for _, w := range operands {
			a.reads(c.text, w, a.dir)
		}
		return
	}
	if p.has("n", "newfile") {
		for i, w := range operands {
			if i%2 == 1 {
				a.writes(c.text, w, a.dir, "writes to")
			} else {
				a.reads(c.text, w, a.dir)
			}
		}
		return
	}
	for _, w := range operands {
		a.writes(c.text, w, a.dir, "rewrites")
	}
}

// yq judges yq: -i rewrites its files; load() and --from-file read files.
func yq(a *analyzer, c *call) {
	o := opts{short: "CMNPeirj0hVv", shortArg: "Iopf", long: "colors no-colors no-doc prettyPrint exit-status inplace unwrapScalar nul-output help version verbose null-input",
		longArg: "indent output-format input-format from-file front-matter expression"}
	p := a.checkOptions(c, &o)
	operands := p.operandWords(c.args)
	if len(operands) > 0 && (operands[0].val == "eval" || operands[0].val == "e" || operands[0].val == "eval-all" || operands[0].val == "ea") {
		operands = operands[1:]
	}
	if len(operands) > 0 && !p.has("from-file") {
		operands = operands[1:] // the expression
	}
	inPlace := p.has("i", "inplace")
	for _, w := range operands {
		if inPlace {
			a.writes(c.text, w, a.dir, "rewrites")
			continue
		}
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// tree judges tree: -o writes its listing (plainTable says so); -R, which writes an
// HTML file in every directory, is not listed.
func tree(a *analyzer, c *call) {
	o := plainTable()["tree"].opts
	p := a.checkOptions(c, &o)
	for _, w := range p.operandWords(c.args) {
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// dc judges dc: its ! command runs the rest of the line as a shell command.
func dc(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "ef", long: []string{"expression", "file"}})
	for _, f := range p.flags {
		switch {
		case f.name == "e" || f.long && f.name == "expression":
			a.dcText(c, f.valueWord(c.args))
		case f.name == "f" || f.long && f.name == "file":
			a.add(Medium, c.text, "runs the dc program in "+f.value+", which can run commands (!)")
			a.codeFile(f.value)
		}
	}
	for _, w := range p.operandWords(c.args) {
		a.add(Medium, c.text, "runs the dc program in "+w.src+", which can run commands (!)")
		a.codeFile(w.src)
	}
	if len(p.flags) == 0 && len(p.operands) == 0 && a.stdin.kind != stdinInherited {
		in := a.stdin
		a.dcText(c, word{val: in.text, lit: !in.unseen && in.kind != stdinFile, src: "(its input)"})
	}
}

func (a *analyzer) dcText(c *call, w word) {
	if !w.lit {
		a.add(Critical, c.text, "runs a dc program only known when it runs, which can run commands (!)")
		return
	}
	for _, line := range strings.Split(w.val, "\n") {
		if i := strings.IndexByte(line, '!'); i >= 0 && !strings.HasPrefix(line[i:], "!=") && !strings.HasPrefix(line[i:], "!<") && !strings.HasPrefix(line[i:], "!>") {
			a.add(High, c.text, "runs a shell command from dc (!)")
			a.code(c.text, line[i+1:])
		}
	}
}

// man judges man: its pager and browser options run programs, -l formats a file.
func man(a *analyzer, c *call) {
	o := opts{short: "afkKwWuhVdD", shortArg: "MSsLEmPH", long: "all whatis apropos where where-cat path regex wildcard names-only no-subpages help version debug default",
		longArg: "manpath sections locale encoding systems extension", config: "C config-file"}
	p := a.checkOptions(c, &o)
	for _, f := range p.flags {
		if f.name == "P" || f.name == "H" || f.long && (f.name == "pager" || f.name == "html") {
			a.add(High, c.text, "makes man run a program of its choice (-"+f.name+")")
			a.shellCode(c, f.valueWord(c.args))
		}
	}
}
