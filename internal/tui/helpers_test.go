package tui

import tea "charm.land/bubbletea/v2"

func keyPress(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }
