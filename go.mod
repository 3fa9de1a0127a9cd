module ttftlab

go 1.26

require (
	github.com/creack/pty v1.1.24
	github.com/peterh/liner v1.2.2
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/sys v0.0.0-20211117180635-dee7805ff2e1
	layeh.com/gopher-json v0.0.0-20190114024228-97fed8db8427
)

require github.com/mattn/go-runewidth v0.0.3 // indirect
