// Small pieces of HTTP handling shared by the front end's files.
#pragma once

#include <httplib.h>

#include <string>
#include <vector>

#include "sandbox/api_error.h"
#include "sandbox/cluster.h"

namespace gpupool::sandbox {

void WriteJson(httplib::Response& response, int status, const std::string& body);
void WriteError(httplib::Response& response, const ApiError& error);
// Replaces the body with one that stops half way and closes the connection.
void WriteTruncated(httplib::Response& response);
void AddWarnings(httplib::Response& response, const std::vector<std::string>& warnings);

// The body as JSON, from JSON, YAML or (where `protobuf_served`: built-in kinds)
// protobuf; throws ApiError 415 listing those for any other Content-Type.
Json DecodeBody(const httplib::Request& request, bool protobuf_served = true);
bool WantsTable(const httplib::Request& request);
// A boolean query parameter as the server parses it (1, t, true, True, TRUE, ...);
// false when absent, 400 BadRequest naming the parameter when malformed.
bool BoolParam(const httplib::Request& request, const std::string& name);
// dryRun, fieldValidation, fieldManager (else from the User-Agent) and force.
WriteOptions WriteOptionsOf(const httplib::Request& request);
// 422 as PatchOptions are refused: an apply needs a fieldManager, and only an
// apply may carry force.
void CheckPatchOptions(const httplib::Request& request, PatchType type);
// A query parameter's 64-bit integer; 400 naming `name` otherwise.
int64_t ParseInteger(const std::string& text, const std::string& name);
DeleteOptions DeleteOptionsOf(const httplib::Request& request);
ListOptions ListOptionsOf(const httplib::Request& request);

// {"kind": "PodList", ..., "items": [...]} built from the stored JSON as is.
std::string ListBody(const ResourceType& resource, const ListResult& result);
std::string TableBody(const ResourceType& resource, const ListResult& result,
                      const std::string& include_object);

}  // namespace gpupool::sandbox
