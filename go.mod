module ttftlab

go 1.26.0

require (
	github.com/creack/pty v1.1.24
	github.com/peterh/liner v1.2.2
	github.com/prometheus/client_model v0.6.3
	github.com/prometheus/common v0.73.1
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/sys v0.49.0
	layeh.com/gopher-json v0.0.0-20190114024228-97fed8db8427
)

require (
	github.com/mattn/go-runewidth v0.0.3 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pandatix/go-abnf v0.5.3 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
