/**
 * The names trace_processor gives a thread or process that a Chromium track descriptor declares only by type
 * (ChromeThreadDescriptor.thread_type, ThreadDescriptor.chrome_thread_type, ChromeProcessDescriptor.process_type,
 * ProcessDescriptor.chrome_process_type), by the number of Chromium's ThreadType and ProcessType enums.
 */

/** Chromium's thread names by ThreadType; the types not listed are named after the enum value itself. */
const THREAD_NAMES: Record<number, string> = {
  1: 'CrProcessMain', 2: 'ChromeIOThread', 3: 'ThreadPoolBackgroundWorker&', 4: 'ThreadPoolForegroundWorker&',
  5: 'ThreadPoolSingleThreadForegroundBlocking&', 6: 'ThreadPoolSingleThreadBackgroundBlocking&',
  7: 'ThreadPoolService', 8: 'Compositor', 9: 'VizCompositorThread', 10: 'CompositorTileWorker&',
  11: 'ServiceWorkerThread&', 12: 'NetworkService', 13: 'Chrome_ChildIOThread', 14: 'Chrome_IOThread',
  15: 'CrBrowserMain', 16: 'CrRendererMain', 17: 'CrUtilityMain', 18: 'CrGpuMain', 19: 'CacheThread_BlockFile',
  20: 'Media', 21: 'AudioOutputDevice', 22: 'AudioInputDevice', 23: 'GpuMemoryThread', 24: 'GpuVSyncThread',
  25: 'DXVAVideoDecoderThread', 26: 'BrowserWatchdog', 27: 'WebRTC_Network', 28: 'Window owner thread',
  29: 'WebRTC_Signaling', 30: 'WebRTC_Worker', 31: 'CrPPAPIMain', 32: 'GpuWatchdog', 33: 'swapper',
  34: 'Gamepad polling thread', 35: 'WebCrypto', 36: 'Database thread', 37: 'Proxy Resolver',
  38: 'Chrome_DevToolsADBThread', 39: 'NetworkConfigWatcher', 40: 'wasapi_render_thread', 41: 'LoaderLockSampler',
  42: 'VSyncThread', 50: 'MemoryInfra', 51: 'StackSamplingProfiler', 52: 'CompositorGpuThread',
};

/** Chromium's process names by ProcessType; 5 and 42 have no name of their own (their enum value's is used). */
const PROCESS_NAMES: Record<number, string> = {
  1: 'Browser', 2: 'Renderer', 3: 'Utility', 4: 'SandboxHelper', 5: 'PROCESS_SANDBOX_HELPER', 6: 'Gpu',
  7: 'PpapiPlugin', 8: 'PpapiBroker', 9: 'Service: network.mojom.NetworkService',
  10: 'Service: tracing.mojom.TracingService', 11: 'Service: storage.mojom.StorageService',
  12: 'Service: audio.mojom.AudioService', 13: 'Service: data_decoder.mojom.DataDecoderService',
  14: 'Service: chrome.mojom.UtilWin', 15: 'Service: proxy_resolver.mojom.ProxyResolverFactory',
  16: 'Service: media.mojom.CdmServiceBroker', 17: 'Service: video_capture.mojom.VideoCaptureService',
  18: 'Service: unzip.mojom.Unzipper', 19: 'Service: mirroring.mojom.MirroringService',
  20: 'Service: patch.mojom.FilePatcher', 21: 'Service: chromeos.tts.mojom.TtsService',
  22: 'Service: printing.mojom.PrintingService', 23: 'Service: quarantine.mojom.Quarantine',
  24: 'Service: chromeos.local_search_service.mojom.LocalSearchService',
  25: 'Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory',
  26: 'Service: chrome.mojom.FileUtilService', 27: 'Service: printing.mojom.PrintCompositor',
  28: 'Service: paint_preview.mojom.PaintPreviewCompositorCollection',
  29: 'Service: media.mojom.SpeechRecognitionService', 30: 'Service: device.mojom.XRDeviceService',
  31: 'Service: chrome.mojom.UtilReadIcon', 32: 'Service: language_detection.mojom.LanguageDetectionService',
  33: 'Service: sharing.mojom.Sharing', 34: 'Service: chrome.mojom.MediaParserFactory',
  35: 'Service: qrcode_generator.mojom.QRCodeService', 36: 'Service: chrome.mojom.ProfileImport',
  37: 'Service: chromeos.ime.mojom.ImeService', 38: 'Service: recording.mojom.RecordingService',
  39: 'Service: shape_detection.mojom.ShapeDetectionService', 40: 'Extension Renderer',
  41: 'Service: media.mojom.MediaFoundationServiceBroker', 42: 'PROCESS_RENDERER_TOP_WEBUI',
};

/** The highest ThreadType; trace_processor names a type between two named ones by its enum's "unknown" value. */
const LAST_THREAD_TYPE = 52;

/** The name of a Chromium thread type, or null (0 is unspecified; a type past the enum is not named). */
export function chromeThreadName(type: number): string | null {
  if (type <= 0 || type > LAST_THREAD_TYPE) return null;
  return THREAD_NAMES[type] ?? 'PBZERO_UNKNOWN_ENUM_VALUE';
}

/** The name of a Chromium process type, or null (0 is unspecified; a type past the enum is not named). */
export function chromeProcessName(type: number): string | null {
  return PROCESS_NAMES[type] ?? null;
}

/** Renderer processes (Renderer, Extension Renderer): their type name outranks the descriptor's process_name. */
export function isRendererType(type: number, extensionToo: boolean): boolean {
  return type === 2 || (extensionToo && type === 40);
}
