package hubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// modelInfo is the Hub's answer to /api/models/{org}/{name}[/revision/{rev}]:
// the fields huggingface_hub's ModelInfo reads, in the Hub's order, with a
// few a client has to skip.
type modelInfo struct {
	ObjectID     string    `json:"_id"`
	ID           string    `json:"id"`
	Private      bool      `json:"private"`
	PipelineTag  string    `json:"pipeline_tag"`
	LibraryName  string    `json:"library_name"`
	Tags         []string  `json:"tags"`
	Downloads    int       `json:"downloads"`
	Likes        int       `json:"likes"`
	ModelID      string    `json:"modelId"`
	Author       string    `json:"author"`
	Sha          string    `json:"sha"`
	LastModified string    `json:"lastModified"`
	Gated        any       `json:"gated"` // false, "auto" or "manual"
	Disabled     bool      `json:"disabled"`
	CardData     *cardData `json:"cardData,omitempty"`
	Siblings     []sibling `json:"siblings"`
	Spaces       []string  `json:"spaces"`
	CreatedAt    string    `json:"createdAt"`
	UsedStorage  int64     `json:"usedStorage"`
}

// cardData is the model card's front matter.
type cardData struct {
	License     string   `json:"license,omitempty"`
	LicenseName string   `json:"license_name,omitempty"`
	LibraryName string   `json:"library_name"`
	Tags        []string `json:"tags"`
}

// sibling is one file of the listing; with ?blobs=true it has its size,
// blobId and, for an LFS file, lfs.
type sibling struct {
	RFilename string `json:"rfilename"`
	Size      *int64 `json:"size,omitempty"`
	BlobID    string `json:"blobId,omitempty"`
	LFS       *lfs   `json:"lfs,omitempty"`
}

// lfs is an LFS file's object.
type lfs struct {
	SHA256      string `json:"sha256"`
	Size        int64  `json:"size"`
	PointerSize int    `json:"pointerSize"`
}

// listing returns repo's listing, with the files' sizes and digests when
// blobs is true.
func listing(repo Repo, blobs bool) modelInfo {
	org, _, _ := strings.Cut(repo.ID, "/")
	author := repo.Author
	if author == "" {
		author = org
	}
	var gated any = false
	if repo.Gated {
		gated = "manual"
	}
	tags := []string{"mlx", "safetensors", "text-generation"}
	var card *cardData
	if repo.License != "" || repo.LicenseName != "" {
		card = &cardData{License: repo.License, LicenseName: repo.LicenseName, LibraryName: "mlx", Tags: []string{"mlx"}}
		if repo.License != "" {
			tags = append(tags, "license:"+repo.License)
		}
	}
	oid := sha1.Sum([]byte("object " + repo.ID))
	info := modelInfo{
		ObjectID:     hex.EncodeToString(oid[:12]),
		ID:           repo.ID,
		Private:      repo.Private,
		PipelineTag:  "text-generation",
		LibraryName:  "mlx",
		Tags:         tags,
		ModelID:      repo.ID,
		Author:       author,
		Sha:          repo.Sha(),
		LastModified: lastModified,
		Gated:        gated,
		CardData:     card,
		Siblings:     []sibling{},
		Spaces:       []string{},
		CreatedAt:    lastModified,
	}
	for _, f := range repo.Files {
		sib := sibling{RFilename: f.Path}
		info.UsedStorage += int64(len(f.Data))
		if blobs {
			size := int64(len(f.Data))
			sib.Size, sib.BlobID = &size, f.BlobID()
			if f.LFS {
				sib.LFS = &lfs{SHA256: f.SHA256(), Size: size, PointerSize: len(f.pointer())}
			}
		}
		info.Siblings = append(info.Siblings, sib)
	}
	return info
}
