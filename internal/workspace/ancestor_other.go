//go:build unix && !linux

package workspace

const oPath = 0
