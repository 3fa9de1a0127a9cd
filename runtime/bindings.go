package runtime

// installBindings defines the lab's global functions; the README
// documents them for script authors.
func (vm *VM) installBindings() {
	vm.installJSONMarkers()
	vm.setGlobalFunc("stream", vm.streamBinding)
	vm.installHTTPBindings()
	vm.installFileBindings()
	vm.setGlobalFunc("kb_docs", vm.kbDocs)
	vm.installTimeBindings()
	vm.setGlobalFunc("log_contains", vm.logContains)
	vm.setGlobalFunc("server_info", vm.serverInfo)
}
