"""From a file to stored segments: reading the caption formats, repairing them,
segmenting into timed windows, transcribing audio and video, and yt-dlp's metadata."""
