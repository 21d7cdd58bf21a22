// What a command printed, as an agent sends it in a tool call's text content: ls -la, then
// a failing go test (a "# ./..." line Markdown would make a heading, *emphasis* and tags).
export const commandOutput = "total 20\ndrwxr-xr-x 2 root root 4096 Dec  2 02:00 .\n-rw-r--r-- 1 root root   12 Dec  2 02:00 *main.go*\n" +
  "# ./...\npattern ./...: <b>no</b> packages\nFAIL\n";
