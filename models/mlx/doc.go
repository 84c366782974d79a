// Package mlx is the backend for MLX models already on disk under wisp's
// home folder. It reads what is there; it never downloads, and it never
// reads weights except to check their digests.
//
// # The layout
//
// A model pulled from a Hugging Face repository "org/name" lives in the
// same layout the Hugging Face cache uses, so the tools that read that
// cache see it too:
//
//	<home>/hub/models--<org>--<name>/blobs/<etag>
//	    the contents of one file, named by its etag: 64 hex digits are the
//	    SHA-256 of the contents (files stored with Git LFS), 40 hex digits
//	    the git blob SHA-1, sha1("blob <len>\x00" + contents) (small files).
//	<home>/hub/models--<org>--<name>/snapshots/<commit>/<file>
//	    a relative symbolic link to ../../blobs/<etag>; a file in a
//	    subfolder has a deeper link (../../../blobs/<etag>).
//	<home>/hub/models--<org>--<name>/refs/main
//	    the commit the snapshot holds.
//	<home>/models/mlx/<name>
//	    the model's link: a relative symbolic link to
//	    ../../hub/models--<org>--<name>/snapshots/<commit>.
//
// The model's wisp name is "mlx:<name>" (this package speaks of it without
// the prefix, as "<name>"), and its repository is "<org>/<name>". The etag
// each snapshot link names is the file's recorded digest, which
// [Backend.Check] verifies.
//
// A real folder at <home>/models/mlx/<name>, or a link to a folder outside
// the hub, is a folder of the person's own: it is a model too, with no
// repository and no recorded digests. Entries whose names begin with "."
// and entries that are neither folders nor links are not models; a pull
// may use such names while it works.
//
// # What a model folder holds
//
// The folder (snapshot or folder of one's own) is read the way mlx-lm
// reads it: config.json (model_type, max_position_embeddings or
// text_config.max_position_embeddings, quantization.bits and
// quantization.mode, vision_config), model.safetensors.index.json
// (metadata.total_parameters and the weight_map naming each shard), the
// weights model*.safetensors, a tokenizer (tokenizer.json,
// tokenizer.model, a vocabulary or tiktoken file), tokenizer_config.json
// (chat_template, chat_template_type, tool_parser_type, added tokens),
// chat_template.jinja and additional_chat_templates/*.jinja, and a
// README.md whose front matter may state a licence.
//
// A model has the capability "completion" when it has a chat template,
// "tools" when mlx-lm would find a tool-call parser for it (a
// tool_parser_type in tokenizer_config.json, or else the parser mlx-lm
// infers from substrings of a single chat template), "thinking" when the
// chat template or the tokenizer's added tokens hold a pair of thinking
// tokens such as <think> and </think>, and "vision" when config.json has a
// vision_config.
//
// Reads for [Backend.List] and [Backend.Show] are small and bounded: JSON
// files of at most 8 MiB, templates of at most 1 MiB (and at most 16
// additional ones), the first MiB of tokenizer.json (only when nothing
// else shows thinking tokens) and the first 64 KiB of README.md. Only [Backend.Check]
// reads every byte.
package mlx
