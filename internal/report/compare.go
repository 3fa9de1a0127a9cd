package report

func comparePage(meta Meta, a, b run) (*page, error) { return nil, nil }
