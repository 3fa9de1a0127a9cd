error({kind = "http", status = 401})
