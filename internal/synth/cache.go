package synth

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// CacheDir is where built models are kept: the user's cache folder
// (os.UserCacheDir, e.g. ~/.cache or $XDG_CACHE_HOME), then ttftlab/models.
func CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache folder for the synthetic model: %w (set XDG_CACHE_HOME or HOME)", err)
	}
	return filepath.Join(dir, "ttftlab", "models"), nil
}

// Cached returns the cached model file of a preset, building it first when
// it is missing or damaged. The file name carries the model's name and
// Version, so a new version of this package builds afresh. built reports
// whether the file was written now; progress, when not nil, hears about it.
func Cached(preset string, progress io.Writer) (path string, built bool, err error) {
	cfg, err := Preset(preset)
	if err != nil {
		return "", false, err
	}
	m, err := Build(cfg)
	if err != nil {
		return "", false, err
	}
	dir, err := CacheDir()
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, fmt.Sprintf("%s-v%d.gguf", cfg.Name(), Version))
	// The layout alone tells the exact size, so a truncated file is caught
	// without reading it.
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() == m.Info().Bytes {
		return path, false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("creating the model cache %s: %w", dir, err)
	}
	if progress != nil {
		fmt.Fprintf(progress, "writing the synthetic model %s (%.0f MB) to %s\n", cfg.Name(), float64(m.Info().Bytes)/1e6, path)
	}
	if err := m.WriteFile(path); err != nil {
		return "", false, err
	}
	return path, true, nil
}
