package runtime

import (
	"sort"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/kb"
)

// kbDocs is kb_docs([dir]) -> array of {name=, text=} sorted by name. dir
// defaults to KB_DIR; nil there means the knowledge base bundled in the
// binary.
func (vm *VM) kbDocs(L *lua.LState) int {
	from := vm.source("KB_DIR")
	if L.Get(1) != lua.LNil {
		from = "kb_docs's dir"
	}
	dir := L.OptString(1, vm.cfg.KBDir)
	docs, warnings, err := kb.Load(dir)
	if err != nil {
		vm.hostError(L, "%v; %s names a folder of *.md files (none: the bundled KB)", err, from)
	}
	for _, w := range warnings {
		vm.warnOnce(w)
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].Name < docs[j].Name })
	list := L.CreateTable(len(docs), 0)
	for _, d := range docs {
		doc := L.CreateTable(0, 2)
		doc.RawSetString("name", lua.LString(d.Name))
		doc.RawSetString("text", lua.LString(d.Text))
		list.Append(doc)
	}
	L.Push(list)
	return 1
}
